/**
 * The contract over web-standard `Request` and `Response`: `api.fetch(request, { clientAddress })`
 * for every host that speaks them (Bun.serve, Deno.serve, a Next.js route handler, Hono on any
 * runtime, a Cloudflare-style worker). It is `api.handle` with the request copied in and the answer
 * copied out, so every rule is the node path's own (see docs/decisions/0039-fetch-entry.md).
 *
 * This module imports no `node:*` module and uses no Node global: it must load wherever `Request`
 * exists (test/http/fetch-entry.test.ts walks its imports).
 */
import { HttpError } from './errors.ts';
import type { HttpAnswer, HttpRequest } from './http-types.ts';

/** What a host passes beside the request. */
export interface FetchOptions {
  /**
   * The peer's address as the host's server saw it (`server.requestIP(req)?.address` on Bun,
   * `info.remoteAddr.hostname` on Deno): it plays the socket peer's part, so the limits per client
   * count by it, and with `trustProxy` hops the `X-Forwarded-For` entry they appended counts instead.
   * Absent, every request counts as one unknown client (one budget for all).
   */
  readonly clientAddress?: string | undefined;
  /**
   * The prefix a host's router serves the service under, when it routes by one (a Next.js route
   * `app/accounts/[...path]/route.ts` is `/accounts`; a Hono `app.mount('/accounts', ...)` too): the
   * service answers under it, and every link and document points into it. `request.url` stays the
   * URL as received, prefix included.
   */
  readonly mountPath?: string | undefined;
}

/** `api.fetch`'s signature: a web-standard handler. */
export type FetchHandler = (request: Request, options?: FetchOptions) => Promise<Response>;

/** How long a request body may take to arrive, from when the service starts reading it. */
export interface FetchLimits {
  /** Default `DEFAULT_BODY_TIMEOUT_MS`, node's `REQUEST_TIMEOUT_MS` default. 0: no bound. */
  readonly bodyTimeoutMs?: number;
  /** Told once, at the first request that comes without `clientAddress` (NO_CLIENT_ADDRESS). */
  readonly warn?: (message: string) => void;
}

/**
 * The warning a host gets once when it passes no `clientAddress`: the limits per client then
 * count every client as one, and nothing else would say so until the 11th signup is refused.
 */
export const NO_CLIENT_ADDRESS =
  'fetch was called without clientAddress: every client counts as one unknown client, so all share one rate-limit budget (the 11th signup from anyone is refused); pass { clientAddress } (Bun: server.requestIP(req)?.address; Deno: info.remoteAddr.hostname)';

/** As `pnpm start`'s REQUEST_TIMEOUT_MS: a whole request within 30 s. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Statuses whose answers have no body at all (a `Response` refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `handle` as a web-standard handler. A host failure around the contract does not exist here: the
 * conversions cannot throw on what a runtime's `Request` holds, and `handle` never throws.
 */
export function fetchHandler(handle: (request: HttpRequest) => Promise<HttpAnswer>, limits: FetchLimits = {}): FetchHandler {
  const bodyTimeoutMs = limits.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  let warn = limits.warn;
  return async (request, options) => {
    if (warn && !options?.clientAddress) {
      warn(NO_CLIENT_ADDRESS);
      warn = undefined;
    }
    const answer = await handle(toHttpRequest(request, options, bodyTimeoutMs));
    return toResponse(answer, request.method === 'HEAD');
  };
}

/**
 * The contract's view of a web request:
 * - `url`: the target in origin form (path and query), as a node server receives it; a runtime has
 *   already resolved the absolute form, dot segments and the like into `request.url`.
 * - `headers`: by lower-case name, as `Headers` gives them (repeated fields joined with `, `); `Host`
 *   from the URL when the runtime left it out of the headers.
 * - `secure`: the URL's scheme is `https:` (the connection was TLS, as far as the host knows).
 * - `body`: the request's stream, read (with its size bounds) only by operations that take a body,
 *   after the limits counted the request, within `bodyTimeoutMs` of the first read.
 */
export function toHttpRequest(request: Request, options: FetchOptions | undefined, bodyTimeoutMs: number = DEFAULT_BODY_TIMEOUT_MS): HttpRequest {
  const href = request.url;
  const scheme = href.indexOf('://');
  const pathStart = href.indexOf('/', scheme + 3);
  const url = pathStart < 0 ? '/' : href.slice(pathStart);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (headers.host === undefined && scheme > 0) headers.host = href.slice(scheme + 3, pathStart < 0 ? href.length : pathStart);
  const { method } = request;
  // GET and HEAD have no body: not even asked for, as a host's lazy Request (@hono/node-server's)
  // builds the whole runtime Request the moment `body` is read.
  const body = method === 'GET' || method === 'HEAD' ? null : request.body;
  return {
    method,
    url,
    headers,
    remoteAddress: options?.clientAddress,
    secure: href.startsWith('https:'),
    body: body === null ? null : bodyTimeoutMs > 0 ? withDeadline(body, bodyTimeoutMs) : body,
    hostBody: undefined,
    mountPath: options?.mountPath,
  };
}

/**
 * The contract's answer as a `Response`: status and headers as they are (a repeated one, such as
 * Set-Cookie, appended once per value), the body as bytes, text or the stream it is (`/mcp`'s event
 * streams: the host cancels it when the client goes, which tells the endpoint to stop). A HEAD
 * answer keeps its headers, `Content-Length` included, and drops its body, as node does.
 */
export function toResponse(answer: HttpAnswer, head = false): Response {
  let { body } = answer;
  if (head || NULL_BODY.has(answer.status)) {
    if (body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) void body.cancel();
    body = null;
  }
  return new Response(body as ConstructorParameters<typeof Response>[0], { status: answer.status, headers: headersInit(answer.headers) });
}

/**
 * The answer's headers as a `Response` takes them: the record itself when every value is one string
 * (a record is a HeadersInit everywhere, and a host's own light Response, such as
 * `@hono/node-server`'s, writes it as it is), else a `Headers` with each value of a repeated header
 * appended (Set-Cookie, one line per cookie).
 */
function headersInit(record: HttpAnswer['headers']): Headers | Record<string, string> {
  for (const name in record) {
    if (typeof record[name] === 'string') continue;
    const headers = new Headers();
    for (const key in record) {
      const value = record[key]!;
      if (typeof value === 'string') headers.append(key, value);
      else for (const v of value) headers.append(key, v);
    }
    return headers;
  }
  return record as Record<string, string>;
}

/**
 * The body stream, whose reading fails with 408 once `ms` have passed since it began. A host's own
 * server bounds the headers and the connection; the body's pace is the service's to bound here, as
 * node:http's `requestTimeout` bounds it on the node path. Read by hand (not `for await`), so a
 * reader that stops early leaves the stream to the host, which still has the answer to send.
 */
function withDeadline(body: ReadableStream<Uint8Array>, ms: number): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      const reader = body.getReader();
      let deadline: number | undefined;
      return {
        async next(): Promise<IteratorResult<Uint8Array>> {
          deadline ??= Date.now() + ms;
          const left = deadline - Date.now();
          let timer: ReturnType<typeof setTimeout> | undefined;
          const late = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(timedOut()), Math.max(0, left));
          });
          try {
            const chunk = await Promise.race([reader.read(), late]);
            return chunk.done ? { done: true, value: undefined } : { done: false, value: chunk.value };
          } catch (error) {
            // Late: the rest of the body is not wanted; an error of the stream itself goes on as it is.
            if (error instanceof HttpError) void reader.cancel().catch(() => {});
            throw error;
          } finally {
            clearTimeout(timer);
          }
        },
        async return(): Promise<IteratorResult<Uint8Array>> {
          reader.releaseLock();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

const timedOut = () => new HttpError(408, 'The request body did not arrive in time', 'request_timeout');
