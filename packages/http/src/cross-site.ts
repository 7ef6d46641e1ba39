/**
 * Requests a limited operation refuses before it counts them, so that a page on another site cannot
 * spend its visitors' limits (20 hidden form posts would lock a visitor, and everyone behind the
 * same NAT, out of login for 15 minutes). A browser can send JSON to another origin only after a
 * CORS preflight, which this API never grants; so every request a foreign page can make is either
 * marked by the browser as cross-site or carries a body type other than JSON.
 */
import { isJsonMediaType } from './body.ts';
import { HttpError } from './errors.ts';
import { headerValue, type HttpRequest } from './http-types.ts';

/**
 * Whether a browser says the request comes from another origin's page: `Sec-Fetch-Site` other than
 * `same-origin` or `none` (browsers since 2023 send it, and pages cannot forge it), or without it an
 * `Origin` other than the service's own (`ownOrigin()`, `null` when unknown). Clients that send
 * neither header are not browsers, or not on a page.
 */
export function isCrossSite(request: HttpRequest, ownOrigin: () => string | null): boolean {
  const site = headerValue(request.headers, 'sec-fetch-site')?.trim().toLowerCase();
  if (site === 'same-origin' || site === 'none') return false;
  if (site !== undefined) return true;
  const origin = headerValue(request.headers, 'origin')?.trim();
  if (origin === undefined) return false;
  const own = ownOrigin();
  return own === null || normalisedOrigin(origin) !== normalisedOrigin(own);
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
 * Throws what a limited operation answers before counting: 403 for a cross-site browser request,
 * 400 for a body that is not JSON (the same answer it always was, now not counted). An operation
 * without a body (`json: false`) is refused only when cross-site.
 */
export function refuseUncounted(request: HttpRequest, ownOrigin: () => string | null, options: { readonly json?: boolean } = {}): void {
  if (isCrossSite(request, ownOrigin)) throw new HttpError(403, CROSS_SITE_REFUSED);
  if (options.json !== false && !isJsonMediaType(headerValue(request.headers, 'content-type'))) throw new HttpError(400, 'Content-Type must be application/json');
}
