import { headerValue, type HttpRequest } from './http-types.ts';

/**
 * The client's address: the socket's, or with `trustProxy` hops in front of the server, the
 * `X-Forwarded-For` entry that the outermost trusted proxy appended (the `trustProxy`-th from the
 * right). Entries further left were written by the client and are never believed.
 */
export function clientAddress(request: HttpRequest, trustProxy: number): string {
  const socket = request.remoteAddress ?? 'unknown';
  if (trustProxy <= 0) return socket;
  const forwarded = headerValue(request.headers, 'x-forwarded-for');
  if (!forwarded) return socket;
  const entries = forwarded.split(',').map((entry) => entry.trim());
  return entries[Math.max(0, entries.length - trustProxy)] || socket;
}
