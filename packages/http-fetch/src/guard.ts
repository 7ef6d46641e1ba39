import type { User } from '@sl-accounts/service/core';
import { isStreamBody, type AuthorizeOptions, type HttpAnswer, type HttpService } from '@sl-accounts/service/http';

/** The guard's outcome: the signed-in user, or the `Response` to send instead. */
export type SessionResult = User | Response;

/**
 * The guard of a host's own routes, for any runtime with web-standard `Request`s (Bun, Deno, Next.js
 * route handlers, a server component's `await headers()`): the user of the request's `sl_session`
 * cookie, or the contract's answer as a `Response` (401 with the cookie cleared, 403 for what
 * `options` asks, 503 when the store does not answer). Never throws. `service` may be
 * `createService(...)`'s promise.
 *
 *   const user = await requireSession(service, request);
 *   if (user instanceof Response) return user;
 */
export async function requireSession(service: HttpService | PromiseLike<HttpService>, from: Request | Headers, options?: AuthorizeOptions): Promise<SessionResult> {
  const headers = from instanceof Headers ? from : from.headers;
  const { user, answer } = await (await service).api.authorize({ headers: Object.fromEntries(headers) }, options);
  return answer ? toResponse(answer) : user;
}

/** A contract answer as a web `Response`: its status, headers (each Set-Cookie its own) and body. */
export function toResponse(answer: HttpAnswer): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) for (const v of typeof value === 'string' ? [value] : value) headers.append(name, v);
  const { body } = answer;
  return new Response(body === null || typeof body === 'string' || isStreamBody(body) ? body : new Uint8Array(body), { status: answer.status, headers });
}
