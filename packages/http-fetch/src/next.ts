import type { HttpService } from '@sl-accounts/http';

/** What `service.fetch` takes beside the request. */
export interface FetchOptions {
  /** The client's address as the host's socket saw it (the rate limits' key; `trustProxy` reads X-Forwarded-For past it). */
  readonly clientAddress?: string | undefined;
  /** A prefix the host stripped or routes under, when the service's `basePath` does not say it. */
  readonly mountPath?: string | undefined;
}

/** The composed service of `@sl-accounts/service` (its `fetch`), or anything that answers a `Request` so. */
export interface FetchService extends HttpService {
  fetch(request: Request, options?: FetchOptions): Promise<Response>;
}

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

/**
 * The handlers of a Next.js App Router catch-all route (`app/accounts/[...path]/route.ts`) with the
 * service's `basePath` set to the route's folder (`/accounts`): every method goes to
 * `service.fetch`. A route handler sees no socket, so the client's address is the last hop of
 * `X-Forwarded-For`: the one a proxy in front of Next.js appended, or, with none, the socket's address
 * that `next start` writes there (it writes it only when the request has no such header, so without
 * a proxy a client can choose its own rate-limit key; pass `clientAddress` to read it elsewhere).
 */
export function toNextJsHandler(service: FetchService, options: { readonly clientAddress?: (request: Request) => string | undefined } = {}): NextJsHandlers {
  const addressOf = options.clientAddress ?? lastForwardedHop;
  const handle = (request: Request) => service.fetch(request, { clientAddress: addressOf(request) });
  return { GET: handle, HEAD: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle };
}

/** The last entry of `X-Forwarded-For`, if any. */
function lastForwardedHop(request: Request): string | undefined {
  const hops = request.headers.get('x-forwarded-for')?.split(',');
  const last = hops?.at(-1)?.trim();
  return last || undefined;
}
