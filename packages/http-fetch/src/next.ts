import type { HttpService } from '@sl-accounts/service/http';

/** A Next.js route module's handlers, one per method: `export const { GET, POST, ... } = toNextJsHandler(service)`. */
export interface NextJsHandlers {
  readonly GET: (request: Request) => Promise<Response>;
  readonly HEAD: (request: Request) => Promise<Response>;
  readonly POST: (request: Request) => Promise<Response>;
  readonly PUT: (request: Request) => Promise<Response>;
  readonly PATCH: (request: Request) => Promise<Response>;
  readonly DELETE: (request: Request) => Promise<Response>;
  readonly OPTIONS: (request: Request) => Promise<Response>;
}

export interface NextJsOptions {
  /** The route's folder (`/accounts` for `app/accounts/[[...path]]/route.ts`), unless the service's `basePath` is it. */
  readonly mountPath?: string;
  /** Where the client's address is read; by default the last hop of `X-Forwarded-For` (below). */
  readonly clientAddress?: (request: Request) => string | undefined;
}

/**
 * The handlers of a Next.js App Router catch-all route (`app/accounts/[[...path]]/route.ts`): every
 * method goes to the service's web-standard handler (`service.api.fetch`), under the service's
 * `basePath` or `mountPath`. `service` may be `createService(...)`'s promise, as a module creates it
 * without top-level await. A route handler sees no socket, so the client's address is the last hop
 * of `X-Forwarded-For`: the one a proxy in front of Next.js appended, or, with none, the socket's
 * address, which `next start` writes there, but only when the request brought no such header. So
 * without a proxy in front, a client can pick its own rate-limit key: put one in front (Vercel is
 * one), or pass `clientAddress`.
 */
export function toNextJsHandler(service: HttpService | PromiseLike<HttpService>, options: NextJsOptions = {}): NextJsHandlers {
  const addressOf = options.clientAddress ?? lastForwardedHop;
  const mountPath = options.mountPath;
  const handle = async (request: Request) => (await service).api.fetch(identity(request), { clientAddress: addressOf(request), mountPath });
  return { GET: handle, HEAD: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle };
}

/**
 * The request without `Accept-Encoding`: `next start` compresses what a route handler answers
 * (its `compress` option, on by default) without looking at a Content-Encoding the answer already
 * has, so a document the service compressed would reach the client compressed twice. Next.js's
 * own compression serves those clients instead.
 */
function identity(request: Request): Request {
  if (!request.headers.has('accept-encoding')) return request;
  const headers = new Headers(request.headers);
  headers.delete('accept-encoding');
  // A new request from the parts: `new Request(request, init)` of Next.js's NextRequest throws (its private state).
  const body = request.method === 'GET' || request.method === 'HEAD' ? null : request.body;
  return new Request(request.url, { method: request.method, headers, body, signal: request.signal, ...(body ? { duplex: 'half' } : {}) } as RequestInit);
}

/** The last entry of `X-Forwarded-For`, if any. */
function lastForwardedHop(request: Request): string | undefined {
  const last = request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim();
  return last || undefined;
}

/**
 * `create()`'s promise, made on first use: what a Next.js module exports as its service, since
 * `next build` imports every route module to read its configuration, and a service created at import
 * would open its store (and read its settings) during the build. The handlers and the guard await it.
 *
 *   export const service = lazily(() => createService({ store: ... }));
 */
export function lazily<T>(create: () => PromiseLike<T>): PromiseLike<T> {
  let made: PromiseLike<T> | undefined;
  return {
    then: (onFulfilled, onRejected) => (made ??= create()).then(onFulfilled, onRejected),
  };
}
