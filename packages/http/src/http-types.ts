/**
 * The two shapes a host exchanges with the contract. Both are plain data that any Node host has at
 * hand (node:http, Koa, Fastify, Hono on Node): no framework types, and nothing converted per request.
 */

/** Header values by lower-case name, as node:http's `IncomingMessage.headers` holds them. */
export type HttpHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** What the contract reads of a request. */
export interface HttpRequest {
  readonly method: string;
  /** The request target as received: path and query (`req.url` in node:http, `ctx.url` in Koa). */
  readonly url: string;
  readonly headers: HttpHeaders;
  /** The peer's address on the socket, before any proxy header is considered. */
  readonly remoteAddress: string | undefined;
  /** Whether the connection itself is TLS (for absolute URLs when no trusted proxy says otherwise). */
  readonly secure?: boolean;
  /**
   * The body bytes, read only by operations that take a body and only after the rate limit counted
   * the request (an `IncomingMessage` or a web `ReadableStream` both qualify).
   */
  readonly body: AsyncIterable<Uint8Array> | null;
  /**
   * The body as a host's own parser left it, when one ran first (koa-bodyparser, express.json(),
   * Fastify's parsers): then `body` is spent. The contract applies its body rules to this instead
   * (see `HostBody`).
   */
  readonly hostBody?: HostBody | undefined;
  /**
   * The prefix a host's router mounted the service under, when the framework routes by one
   * (Express's `req.baseUrl`, a `@koa/router` prefix, a Fastify plugin's `prefix`, a Hono route's
   * base): the service answers under `mountPath` + its own `basePath`, and every link and document
   * says so. `url` stays the target as received, prefix included.
   */
  readonly mountPath?: string | undefined;
}

/**
 * What a host's body parser made of a request body:
 * - `text`: the raw body it read (koa-bodyparser's `rawBody`), bytes or decoded text;
 * - `parsed`: only the parsed value (express.json()); `checked` when the host's parser was the
 *   contract's own `readJsonBody` (a Fastify content-type parser), so every rule held already;
 * - `failed`: the parser's error (malformed JSON, too large, a type it does not take): the contract
 *   answers it with its own ErrorResponse, and counts no rate limit, since the service never read it.
 */
export type HostBody = { readonly text: string | Uint8Array } | { readonly parsed: unknown; readonly checked?: boolean } | { readonly failed: unknown };

/** What the host writes back: status, headers (arrays for repeated ones such as Set-Cookie), body. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  /**
   * Bytes or text, already serialised; `null` for none; or a stream the host pipes out as it comes
   * (only `/mcp`'s event streams: no `Content-Length`, and a host cancels it when the client goes).
   * Hosts leave the body out for HEAD.
   */
  readonly body: string | Uint8Array | ReadableStream<Uint8Array> | null;
}

/** Whether an answer's body is a stream to pipe (else bytes, text or none). */
export function isStreamBody(body: HttpAnswer['body']): body is ReadableStream<Uint8Array> {
  return body !== null && typeof body !== 'string' && !(body instanceof Uint8Array);
}

/**
 * The path of a request target, without query or fragment: `/a/b?c` and the absolute form
 * `http://host/a/b?c` (RFC 9112 3.2.2) both give `/a/b`. Every host routes by this, so they agree.
 */
export function requestPath(target: string): string {
  let start = 0;
  if (target.charCodeAt(0) !== 47 /* '/' */) {
    const scheme = target.indexOf('://');
    if (scheme < 0) return target; // `*` and the like: no route has such a path
    start = target.indexOf('/', scheme + 3);
    if (start < 0) return '/';
  }
  const query = target.indexOf('?', start);
  const fragment = target.indexOf('#', start);
  const end = query < 0 ? fragment : fragment < 0 ? query : Math.min(query, fragment);
  return end < 0 ? (start === 0 ? target : target.slice(start)) : target.slice(start, end);
}

/** The first value of a header (repeated headers come as arrays from node:http for a few names only). */
export function headerValue(headers: HttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : value?.[0];
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON answer. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string | string[]> = {}): HttpAnswer & { readonly body: string } {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: JSON.stringify(body) };
}
