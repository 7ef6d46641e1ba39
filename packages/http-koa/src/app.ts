/**
 * The Koa adapter: an @koa/router router built from the contract's route table, which a Koa app
 * mounts beside its own routers; a session guard for the app's own routes; an error middleware that
 * answers a body parser's failure on the service's paths the contract's way; and `createApp`, the
 * service alone (what `pnpm start` runs). Every answer is the contract's, so a Koa host and a
 * node:http host answer alike.
 */
import Koa, { type Context, type Middleware } from 'koa';
import Router from '@koa/router';
import { isHostBodyError, logClientFault, type HostBody, type HttpAnswer, type HttpApi, type Logger } from '@sl-accounts/http';
import { toHttpRequest } from '@sl-accounts/http-node';
import type { McpEndpoint } from '@sl-accounts/mcp';

export interface KoaServiceOptions {
  readonly api: HttpApi;
  /** Mounted at its own path (`<basePath>/mcp`) when given. */
  readonly mcp?: McpEndpoint;
}

/** Koa's request as koa-bodyparser and @koa/bodyparser leave it. */
interface ParsedKoaRequest {
  readonly body?: unknown;
  readonly rawBody?: unknown;
}

/**
 * What a body parser that ran before the service made of the body: its raw text when it kept it
 * (koa-bodyparser, @koa/bodyparser), else the parsed value if it read the stream; `undefined` when
 * nothing read it (then the contract reads the stream itself, after counting the request).
 */
function hostBodyOf(ctx: Context, failed?: unknown): HostBody | undefined {
  // A parser that refused before reading (a content coding it does not know, such as `x-gzip`)
  // left the body whole: the contract reads it under its own rules.
  if (failed !== undefined) return ctx.req.readableDidRead ? { failed } : undefined;
  const { body, rawBody } = ctx.request as ParsedKoaRequest;
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) return { text: rawBody };
  return ctx.req.readableDidRead && body !== undefined ? { parsed: body } : undefined;
}

/** Writes a contract answer: straight onto node's response, since the contract has checked it all. */
function send(ctx: Context, answer: HttpAnswer): void {
  ctx.status = answer.status;
  const { headers, body } = answer;
  for (const name in headers) ctx.res.setHeader(name, headers[name]!);
  // Koa sends strings and Buffers as they are (and would serialise any other object as JSON).
  ctx.body = body === null || typeof body === 'string' || Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

async function serve({ api, mcp }: KoaServiceOptions, ctx: Context, failed?: unknown): Promise<void> {
  if (mcp?.handles(ctx.originalUrl)) {
    ctx.respond = false; // the bridge writes the response itself, streams included
    await mcp.handleNode(ctx.req, ctx.res, hostBodyOf(ctx, failed));
    return;
  }
  // Node's own request, and the target as received (`originalUrl`, whatever a mount stripped).
  send(ctx, await api.handle(toHttpRequest(ctx.req, hostBodyOf(ctx, failed), ctx.originalUrl)));
}

/**
 * The service as an @koa/router router: every path of the contract (operations, documents, `/mcp`),
 * for every method, so the contract still answers 405 and 501 for its own paths; at the root any
 * other path falls through to the app's own routes (at the root the service's are `/api/…`, its
 * documents and `/mcp`). Under `api.basePath` every path inside it is
 * the service's. Paths match exactly (case and trailing slash), as
 * the contract's do.
 *
 *   app.use(serviceRouter({ api, mcp }).routes());
 */
export function serviceRouter(options: KoaServiceOptions): Router {
  const { api, mcp } = options;
  const router = new Router({ sensitive: true, strict: true });
  const handler: Middleware = (ctx) => serve(options, ctx);
  // Under a prefix the whole prefix is the service's (the contract answers 404 for what it does not
  // serve there), the prefix itself included: it is the index. The paths are written out rather
  // than left to the router's `prefix` option, which matches `/accounts/` but never `/accounts`.
  // One layer matching every path of the service, not one per path: the router tests each layer's
  // pattern on every request, and with ~20 layers that cost a third of `/api/health`'s throughput.
  const { basePath } = api;
  const escape = (path: string) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const paths = [...api.mountPaths, ...(mcp ? [mcp.path] : [])].map((path) => (path.endsWith('*') ? `${escape(path.slice(0, -1))}.*` : escape(path)));
  router.all(basePath ? new RegExp(`^${escape(basePath)}(?:/.*)?$`) : new RegExp(`^(?:${paths.join('|')})$`), handler);
  return router;
}

/**
 * Under a base path, the `/.well-known/` documents at the origin's root (RFC 8615), their links
 * pointing into the base path. Mount it at the root: `app.use(wellKnownRouter({ api }).routes())`.
 */
export function wellKnownRouter({ api }: Pick<KoaServiceOptions, 'api'>): Router {
  const router = new Router({ sensitive: true, strict: true });
  const handler: Middleware = (ctx) => serve({ api }, ctx);
  for (const path of api.paths) if (path.startsWith('/.well-known/')) router.all(path, handler);
  return router;
}

/**
 * Mount first: a body parser mounted before the service (koa-bodyparser, @koa/bodyparser) throws
 * on malformed JSON or an oversized body before the router runs. On the service's paths that
 * failure is answered by the contract (its ErrorResponse, no rate limit spent); elsewhere it goes on
 * to the app's own error handling.
 */
export function serviceErrors(options: KoaServiceOptions): Middleware {
  const { api, mcp } = options;
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const ours = api.owns(ctx.originalUrl) || mcp?.handles(ctx.originalUrl);
      if (!ours || !isHostBodyError(error) || ctx.headerSent) throw error;
      await serve(options, ctx, error);
    }
  };
}

/**
 * A guard for the app's own routes: the signed-in user on `ctx.state.user`, or the contract's 401
 * ErrorResponse (cookie cleared) without a session.
 */
export function requireSession({ api }: Pick<KoaServiceOptions, 'api'>): Middleware {
  return async (ctx, next) => {
    const user = await api.session(ctx.req);
    if (!user) {
      send(ctx, api.unauthenticated(ctx.req));
      return;
    }
    ctx.state.user = user;
    await next();
  };
}

/**
 * Middleware that answers every request with the service, the contract's own 404 included: the
 * last middleware of an app that serves only this service.
 */
export function serviceMiddleware(options: KoaServiceOptions): Middleware {
  return (ctx) => serve(options, ctx);
}

/**
 * A Koa application serving only this service (`pnpm start`). Errors Koa itself meets are logged,
 * never shown: a client that hung up as one short debug line, anything else as an error.
 *
 * Here every path is the service's (its own 404 included, and under a base path the root
 * `/.well-known/` documents), so the app is `serviceMiddleware` alone, without `serviceRouter` in
 * front: the router would send every request to the same place and cost a fifth of `/api/health`'s
 * throughput (35,000 vs 27,000 req/s, memory store, interleaved rounds; test/bench/ab.ts).
 */
export function createApp(options: KoaServiceOptions & { readonly logger: Logger }): Koa {
  const app = new Koa();
  app.silent = true;
  // A broken connection also reaches node's 'clientError', which the server logs at info.
  app.on('error', (err: unknown) => logClientFault(options.logger, err, 'koa error', 'debug'));
  app.use(serviceMiddleware(options));
  return app;
}
