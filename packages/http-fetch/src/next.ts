import type { HttpService } from '@sl-accounts/http';

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
  /** The route's folder (`/accounts` for `app/accounts/[...path]/route.ts`), unless the service's `basePath` is it. */
  readonly mountPath?: string;
  /** Where the client's address is read; by default the last hop of `X-Forwarded-For` (below). */
  readonly clientAddress?: (request: Request) => string | undefined;
}

/**
 * The handlers of a Next.js App Router catch-all route (`app/accounts/[...path]/route.ts`): every
 * method goes to the service's web-standard handler (`service.api.fetch`), under the service's
 * `basePath` or `mountPath`. A route handler sees no socket, so the client's address is the last hop
 * of `X-Forwarded-For`: the one a proxy in front of Next.js appended, or, with none, the socket's
 * address, which `next start` writes there, but only when the request brought no such header. So
 * without a proxy in front, a client can pick its own rate-limit key: put one in front (Vercel is
 * one), or pass `clientAddress`.
 */
export function toNextJsHandler(service: HttpService, options: NextJsOptions = {}): NextJsHandlers {
  const { api } = service;
  const addressOf = options.clientAddress ?? lastForwardedHop;
  const mountPath = options.mountPath;
  const handle = (request: Request) => api.fetch(request, { clientAddress: addressOf(request), mountPath });
  return { GET: handle, HEAD: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle };
}

/** The last entry of `X-Forwarded-For`, if any. */
function lastForwardedHop(request: Request): string | undefined {
  const last = request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim();
  return last || undefined;
}
