/**
 * The service on node:http in the shape Connect-style hosts share (Express, Connect, NestJS, a bare
 * `http.createServer`): `accounts(service)` is both a request listener and a `(req, res, next)`
 * middleware; `requireSession` the guard of a host's own routes; `bodyErrors` the error middleware
 * that answers a body parser's failure on the service's paths the contract's way.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isHostBodyError, requestPath, type AuthorizeOptions, type HostBody, type HttpApi, type HttpService } from '@sl-accounts/service/http';
import type { User } from '@sl-accounts/service/core';
import { sendAnswer, toHttpRequest } from './convert.ts';

/**
 * node's request as Connect-style hosts leave it: a mount's prefix and the target as received, a body
 * parser's result. An intersection, not an interface that extends IncomingMessage: a parser's types
 * may augment IncomingMessage's own `body` or `rawBody` (`@koa/bodyparser` makes `rawBody` a string),
 * which an interface would then contradict.
 */
export type ConnectRequest = IncomingMessage & {
  /** The prefix a router mounted the middleware at (Express). */
  baseUrl?: string;
  /** The target as received, when a mount stripped its prefix from `url` (Express, Connect). */
  originalUrl?: string;
  /** What a body parser made of the body (express.json(), body-parser). */
  body?: unknown;
  /** The raw body, where a parser keeps it. */
  rawBody?: unknown;
  /** The signed-in user, once `requireSession` let the request through. */
  user?: User;
};

/** `next` of a Connect-style host: with an error, to its error handlers. */
export type Next = (error?: unknown) => void;

/**
 * The service as a request listener and a Connect-style middleware at once:
 *
 *   http.createServer(accounts(service)).listen(3000);      // every request; the contract's 404 for the rest
 *   app.use('/accounts', accounts(service));                // Express, Connect, NestJS: other paths go on to `next`
 *
 * It answers the service's paths (see `api.owns`) under whatever prefix it is mounted at, with a
 * body a parser that ran first has read; everything else goes on to `next`, or gets the contract's
 * 404 when there is none.
 */
export function accounts(service: HttpService): (req: IncomingMessage, res: ServerResponse, next?: Next) => void {
  const { api } = service;
  return (req: ConnectRequest, res, next) => {
    const url = req.originalUrl ?? req.url ?? '/';
    const mountPath = mountPathOf(req);
    if (next && !api.owns(url, mountPath)) return next();
    serve(api, req, res, url, mountPath, hostBodyOf(req));
  };
}

/**
 * The error middleware for a body parser mounted before the service (express.json()): a body it
 * refused on the service's paths gets the contract's ErrorResponse (and costs no rate limit, since
 * the service never read it); anything else goes on to the host's error handling.
 */
export function bodyErrors(service: HttpService): (error: unknown, req: IncomingMessage, res: ServerResponse, next: Next) => void {
  const { api } = service;
  return (error, req: ConnectRequest, res, next) => {
    const url = req.originalUrl ?? req.url ?? '/';
    const mountPath = mountPathOf(req);
    if (res.headersSent || !isHostBodyError(error) || !api.owns(url, mountPath)) return next(error);
    // A parser that refused before reading (a content coding it does not know) left the body whole for the contract.
    serve(api, req, res, url, mountPath, req.readableDidRead ? { failed: error } : undefined);
  };
}

/**
 * The guard of a host's own routes: the signed-in user on `req.user`, or the contract's answer (401,
 * or 403 for what `options` asks, or 503 when the store does not answer).
 *
 *   app.get('/me', requireSession(service), (req, res) => res.json(req.user));
 */
export function requireSession(service: HttpService, options?: AuthorizeOptions): (req: IncomingMessage, res: ServerResponse, next: Next) => void {
  const { api } = service;
  return (req: ConnectRequest, res, next) => {
    void api.authorize(req, options).then(({ user, answer }) => {
      if (answer) return sendAnswer(res, answer);
      req.user = user;
      next();
    });
  };
}

/** Hands the request to the contract and writes its answer; a failure of the host around it is the contract's 500. */
function serve(api: HttpApi, req: IncomingMessage, res: ServerResponse, url: string, mountPath: string | undefined, hostBody: HostBody | undefined): void {
  api.handle(toHttpRequest(req, hostBody, url, mountPath)).then(
    (answer) => sendAnswer(res, answer),
    (error: unknown) => {
      if (!res.headersSent) sendAnswer(res, api.answerError(error, req));
      else res.destroy();
    },
  );
}

/**
 * The prefix the host mounted the middleware at: Express says (`baseUrl`); Connect only strips it
 * from `url`, so it is what `originalUrl` has in front of `url`.
 */
function mountPathOf(req: ConnectRequest): string | undefined {
  if (typeof req.baseUrl === 'string') return req.baseUrl;
  if (req.originalUrl === undefined || req.url === undefined || req.originalUrl === req.url) return undefined;
  const full = requestPath(req.originalUrl);
  const rest = requestPath(req.url);
  if (full.endsWith(rest)) return full.slice(0, full.length - rest.length);
  // `/accounts` mounted at `/accounts` leaves `url` as `/`.
  return rest === '/' ? full : undefined;
}

/**
 * What a body parser that ran first made of the body: its raw text when it kept it, else the parsed
 * value; `undefined` when nothing read the stream (the contract reads it itself, after counting the
 * request).
 */
function hostBodyOf(req: ConnectRequest): HostBody | undefined {
  if (!req.readableDidRead) return undefined;
  const { body } = req;
  // Read as unknown: a parser's augmentation may type it more narrowly than what a host put there.
  const rawBody: unknown = req.rawBody;
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) return { text: rawBody };
  return { parsed: body };
}
