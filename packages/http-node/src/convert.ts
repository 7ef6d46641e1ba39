/**
 * The two conversions every node-based host makes: node's request into the contract's `HttpRequest`,
 * and the contract's `HttpAnswer` onto node's response. Koa, Express, Fastify and Hono on Node all
 * hand the contract node's own `IncomingMessage`, so they all use these.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { isStreamBody, type HostBody, type HttpAnswer, type HttpRequest } from '@sl-accounts/service/http';
import { answeredByStop } from './stop.ts';

/**
 * The contract's view of a node request: its method, target, headers and peer, and the request itself
 * as the body stream (read only by operations that take a body, after the rate limit counted it).
 *
 * - `hostBody`: what a body parser that ran first made of the body (koa-bodyparser, express.json()).
 * - `url`: the target as received, when a framework's mount rewrote `req.url` (Express's
 *   `req.originalUrl`, Koa's `ctx.originalUrl`); default `req.url`.
 * - `mountPath`: the prefix a host's router mounted the service under (see `HttpRequest.mountPath`).
 */
export function toHttpRequest(req: IncomingMessage, hostBody?: HostBody, url: string = req.url ?? '/', mountPath?: string): HttpRequest {
  const { socket } = req;
  // One object shape for every request (`hostBody` and `mountPath` always present), so the contract's hot path stays monomorphic.
  return { method: req.method ?? 'GET', url, headers: req.headers, remoteAddress: socket.remoteAddress, secure: 'encrypted' in socket, body: req, hostBody, mountPath };
}

/**
 * Writes the contract's answer as it is: it has framed and checked it all (node leaves the body out
 * of HEAD answers itself). A streamed body (`/mcp`'s event streams) goes out as its events come, and
 * is cancelled when the client goes away, which tells the endpoint to stop.
 */
export function sendAnswer(res: ServerResponse, answer: HttpAnswer): void {
  const { body } = answer;
  // The stop answered 503 at its drain bound, and this answer came after it.
  if (answeredByStop(res)) {
    if (isStreamBody(body)) void body.cancel();
    return;
  }
  if (!isStreamBody(body)) {
    res.writeHead(answer.status, answer.headers).end(body);
    return;
  }
  res.writeHead(answer.status, answer.headers);
  if (res.req?.method === 'HEAD') {
    void body.cancel();
    res.end();
    return;
  }
  res.flushHeaders();
  pipeline(Readable.fromWeb(body as NodeReadableStream<Uint8Array>), res).catch(() => {
    // The client went away mid-stream: pipeline has cancelled the stream.
  });
}
