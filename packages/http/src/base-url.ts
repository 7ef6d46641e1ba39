import { isIPv4, isIPv6 } from 'node:net';
import { headerValue, type HttpRequest } from './http-types.ts';

const first = (value: string | undefined) => value?.split(',', 1)[0]!.trim() || undefined;

/** One DNS-style label: letters, digits, `_` and inner hyphens, at most 63 characters. */
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const HOSTNAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`, 'i');
const HOST_AND_PORT = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/;

/**
 * `host[:port]` in lower case when `value` is a host as RFC 9110 allows it in `Host` (a DNS name, an
 * IPv4 address or a bracketed IPv6 address, then an optional port), else `null`. Names whose last
 * label is a number (`1.2.3`, `a.123`) are refused: URL parsers read them as IPv4 addresses.
 */
export function checkedHost(value: string): string | null {
  const match = HOST_AND_PORT.exec(value);
  if (!match) return null;
  const [, host = '', port] = match;
  if (port !== undefined && Number(port) > 65_535) return null;
  const valid = host.startsWith('[')
    ? isIPv6(host.slice(1, -1)) && !host.includes('%')
    : isIPv4(host) || (host.length <= 253 && HOSTNAME.test(host) && !/(^|\.)\d+\.?$/.test(host));
  return valid ? value.toLowerCase() : null;
}

/** The request's own origin, and the forwarded headers it ignored because they were not valid. */
export interface RequestOrigin {
  /** `scheme://host[:port]`, or `null` when the `Host` header is missing or not a valid host. */
  readonly origin: string | null;
  /** `X-Forwarded-Proto` or `-Host` values that were trusted but invalid, and so not used. */
  readonly ignored: readonly string[];
}

/**
 * The request's own origin: the scheme (TLS, else a trusted `X-Forwarded-Proto` of `http` or
 * `https`, else `http`) and the host (a trusted `X-Forwarded-Host`, else `Host`), each checked.
 * Forwarded headers count only with trusted proxies (`trustProxy` > 0), and then their first value;
 * an invalid one is ignored (the connection's own view counts) and reported in `ignored`.
 */
export function requestOrigin(request: HttpRequest, trustProxy: number): RequestOrigin {
  const { headers } = request;
  const ignored: string[] = [];
  let protocol = request.secure ? 'https' : 'http';
  let host: string | null = null;
  if (trustProxy > 0) {
    const proto = first(headerValue(headers, 'x-forwarded-proto'))?.toLowerCase();
    if (proto === 'http' || proto === 'https') {
      if (!request.secure) protocol = proto;
    } else if (proto !== undefined) {
      ignored.push('X-Forwarded-Proto');
    }
    const forwardedHost = first(headerValue(headers, 'x-forwarded-host'));
    if (forwardedHost !== undefined) {
      host = checkedHost(forwardedHost);
      if (!host) ignored.push('X-Forwarded-Host');
    }
  }
  host ??= checkedHost(headerValue(headers, 'host')?.trim() ?? '');
  return { origin: host ? `${protocol}://${host}` : null, ignored };
}

/** The headers a document written from the request's origin depends on (for `Vary`). */
export function originHeaders(trustProxy: number): string {
  return trustProxy > 0 ? 'Host, X-Forwarded-Host, X-Forwarded-Proto' : 'Host';
}

/**
 * The absolute base URL that discovery documents put in front of paths: `publicUrl` when it is
 * configured, else the request's own origin (see `requestOrigin`). Never throws: without a valid
 * host it answers `http://localhost`, for transports that cannot refuse the request (MCP resource
 * URIs); the documents themselves answer 400 then.
 */
export function baseUrlOf(request: HttpRequest, publicUrl: string | undefined, trustProxy: number): string {
  return publicUrl ?? requestOrigin(request, trustProxy).origin ?? 'http://localhost';
}
