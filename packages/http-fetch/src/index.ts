/**
 * The service where web-standard `Request` and `Response` run (Next.js, Bun, Deno, Cloudflare-style
 * hosts): the route handlers of a Next.js App Router catch-all route, and a session guard that takes
 * a `Request` (or the `Headers` a server component reads) and gives the user or the contract's answer.
 * The service's own `service.fetch(request, { clientAddress })` serves every path; this package only
 * fits it to the hosts' idioms.
 */
export { requireSession, toResponse, type SessionResult } from './guard.ts';
export { lazily, toNextJsHandler, type NextJsHandlers, type NextJsOptions } from './next.ts';
