/**
 * Validators and lifetimes of the documents: every document answer carries an `ETag` and a
 * `Cache-Control`, and a client whose copy is current gets 304 with no body.
 */
import { createHash } from 'node:crypto';
import fresh from 'fresh';
import { headerValue, isStreamBody, type HttpAnswer, type HttpRequest } from '@sl-accounts/http';

/**
 * How long caches may keep a discovery document: an hour, in any cache. The Agent Skills discovery
 * (0.2.0) and MCP server-card drafts ask servers for caching headers; an hour keeps crawlers from
 * polling while a changed deployment shows within the hour.
 */
export const DOCUMENT_CACHE_CONTROL = 'public, max-age=3600';

/**
 * A strong entity tag of a representation: its content type and its bytes, so the same bytes sent
 * as another type (content negotiation) are another entity.
 */
function representationTag(type: string, body: string | Uint8Array): string {
  return `"${createHash('sha256').update(type).update('\n').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * Whether the client's `If-None-Match` names `etag` (weak comparison, RFC 9110 13.1.2), by `fresh`.
 * It is given the one precondition alone: `fresh` also calls any request with `Cache-Control:
 * no-cache` stale (a cache's view), where an origin server evaluates the precondition all the same
 * (RFC 9110 13.2.2), so a proxy revalidating for such a client still gets its 304.
 */
function isFresh(request: HttpRequest, etag: string): boolean {
  return fresh({ 'if-none-match': headerValue(request.headers, 'if-none-match') }, { etag });
}

/**
 * A document's 200 answer with an `ETag` (its own, else one from the body) and a `Cache-Control`
 * (its own, else `DOCUMENT_CACHE_CONTROL`); 304 with the same validators and no body when the
 * client's copy is current. Other answers pass as they are.
 */
export function withValidators(request: HttpRequest, answer: HttpAnswer): HttpAnswer {
  if (answer.status !== 200 || answer.body === null || isStreamBody(answer.body)) return answer;
  const own = answer.headers.etag;
  const type = answer.headers['content-type'];
  const etag = typeof own === 'string' ? own : representationTag(typeof type === 'string' ? type : '', answer.body);
  const headers = { 'cache-control': DOCUMENT_CACHE_CONTROL, ...answer.headers, etag };
  return isFresh(request, etag) ? notModified(headers) : { ...answer, headers };
}

/**
 * 304 with the 200's headers but those that describe a body (RFC 9110 15.4.5): it has none, and Koa
 * would drop them anyway, so every host sends the same answer.
 */
function notModified(headers: HttpAnswer['headers']): HttpAnswer {
  const kept = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'content-type' && name !== 'content-length'));
  return { status: 304, headers: kept, body: null };
}
