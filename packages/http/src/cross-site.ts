/**
 * Requests a state-changing operation refuses before it does anything, so that a page on another site
 * can neither spend its visitors' limits (20 hidden form posts would lock a visitor, and everyone
 * behind the same NAT, out of login for 15 minutes) nor act with their session (log them out). A browser can send JSON to another origin only after a
 * CORS preflight, which this API never grants; so every request a foreign page can make is either
 * marked by the browser as cross-site or carries a body type other than JSON.
 */
import { isJsonMediaType } from './body.ts';
import { HttpError } from './errors.ts';
import { headerValue, type HttpRequest } from './http-types.ts';

/**
 * Whether a browser says the request comes from another origin's page: `Sec-Fetch-Site` other than
 * `same-origin` or `none` (browsers since 2023 send it, and pages cannot forge it); without it, an
 * `Origin` other than the service's own (`ownOrigin()`, `null` when unknown); without either, a
 * `Referer` whose origin is another (an older browser, or a client that strips the first two: the
 * page it names is the evidence left, as OWASP's CSRF sheet has it). Clients that send none of the
 * three are not browsers, or not on a page.
 */
export function isCrossSite(request: HttpRequest, ownOrigin: () => string | null): boolean {
  const site = headerValue(request.headers, 'sec-fetch-site')?.trim().toLowerCase();
  if (site === 'same-origin' || site === 'none') return false;
  if (site !== undefined) return true;
  const origin = headerValue(request.headers, 'origin')?.trim() ?? refererOrigin(request);
  if (origin === undefined) return false;
  const own = ownOrigin();
  return own === null || normalisedOrigin(origin) !== normalisedOrigin(own);
}

/** The Referer as the origin it names (`null`, foreign to every origin, when it is not a URL); `undefined` without one. */
function refererOrigin(request: HttpRequest): string | undefined {
  const referer = headerValue(request.headers, 'referer')?.trim();
  if (referer === undefined || referer === '') return undefined;
  return URL.parse(referer)?.origin ?? 'null';
}

/** `scheme://host[:port]` as browsers serialise it (lower case, no default port), or `null`. */
function normalisedOrigin(value: string): string | null {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

export const CROSS_SITE_REFUSED = 'Cross-site requests are not accepted';

/**
 * Throws what a state-changing operation answers before it counts the request, reads a session or
 * sets a cookie: 403 for a cross-site browser request; 400 for a body a form or a no-cors fetch could
 * send (a type other than JSON; for an operation that takes no body, any body without a type too).
 */
export function refuseForeignRequest(request: HttpRequest, takesBody: boolean, ownOrigin: () => string | null): void {
  if (isCrossSite(request, ownOrigin)) throw new HttpError(403, CROSS_SITE_REFUSED, 'cross_site');
  const type = headerValue(request.headers, 'content-type');
  if (takesBody || type !== undefined) {
    if (!isJsonMediaType(type)) throw new HttpError(400, 'Content-Type must be application/json', 'json_required');
  } else if (announcesBody(request)) {
    throw new HttpError(400, 'This operation takes no request body', 'body_not_allowed');
  }
}

/** Whether the request says a body follows (RFC 9112 6.3: a Transfer-Encoding, or a non-zero Content-Length). */
function announcesBody(request: HttpRequest): boolean {
  if (headerValue(request.headers, 'transfer-encoding') !== undefined) return true;
  const length = headerValue(request.headers, 'content-length');
  return length !== undefined && length.trim() !== '0';
}
