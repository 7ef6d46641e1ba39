import { canonicalIp, UNKNOWN_CLIENT } from '@sl-accounts/service/core';
import { headerValue, type HttpRequest } from './http-types.ts';
import type { Logger } from './logger.ts';

/**
 * The client's address, canonical (see core's `canonicalIp`): the socket's, or with `trustProxy`
 * hops in front of the server, the `X-Forwarded-For` entry that the outermost trusted proxy appended
 * (the `trustProxy`-th from the right). Entries further left were written by the client and are
 * never believed. An entry that is not an IP address is not believed either: the socket's address
 * counts, and `logger` gets a warning.
 */
export function clientAddress(request: HttpRequest, trustProxy: number, logger?: Logger): string {
  const socket = canonicalIp(request.remoteAddress ?? '') ?? UNKNOWN_CLIENT;
  if (trustProxy <= 0) return socket;
  const forwarded = headerValue(request.headers, 'x-forwarded-for');
  if (forwarded === undefined) return socket;
  const entries = forwarded.split(',');
  const entry = entries[Math.max(0, entries.length - trustProxy)]!.trim();
  const address = canonicalIp(entry);
  if (address) return address;
  logger?.warn({ entry: entry.slice(0, 100), socket }, 'X-Forwarded-For entry is not an IP address; counting the socket address');
  return socket;
}
