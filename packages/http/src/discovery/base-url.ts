import { headerValue, type HttpRequest } from '../http-types.ts';

const first = (value: string | undefined) => value?.split(',', 1)[0]!.trim() || undefined;

/**
 * The absolute base URL that discovery documents put in front of paths: `publicUrl` when it is
 * configured, else the request's own scheme and host. `X-Forwarded-Proto` and `-Host` count only
 * when proxies are trusted (`trustProxy` > 0), and then their first value.
 */
export function baseUrlOf(request: HttpRequest, publicUrl: string | undefined, trustProxy: number): string {
  if (publicUrl) return publicUrl;
  const { headers } = request;
  const proxied = trustProxy > 0;
  const protocol = request.secure ? 'https' : (proxied && first(headerValue(headers, 'x-forwarded-proto'))) || 'http';
  const host = (proxied && first(headerValue(headers, 'x-forwarded-host'))) || first(headerValue(headers, 'host')) || '';
  return `${protocol}://${host}`;
}
