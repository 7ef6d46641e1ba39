/**
 * Client addresses: one canonical spelling per address, and the key a rate limit counts it under.
 * Every transport reaches the limits through the core, so every transport keys clients alike.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** IPv6 clients are counted by network: one household or small site gets a /56 (express-rate-limit 8 does too). */
export const DEFAULT_IPV6_PREFIX = 56;

/** The shared bucket of a caller that reported no usable address: never a fresh bucket per spelling. */
export const UNKNOWN_CLIENT = 'unknown';

const WITH_PORT_V4 = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/;
const BRACKETED_V6 = /^\[([^\]]+)\](?::(\d{1,5}))?$/;
const isPort = (digits: string | undefined) => digits === undefined || Number(digits) <= 65_535;

/**
 * The canonical form of an IP address, or `null` when `text` is not one. IPv4 stays dotted decimal
 * (Node refuses leading zeros such as `005.005.005.005`, which other parsers read as octal); an
 * IPv4-mapped IPv6 address (`::ffff:5.5.5.5`) is its IPv4 address; other IPv6 addresses are written
 * compressed and in lower case (RFC 5952), without a zone (`%eth0`). A port, as some proxies write
 * it (`5.5.5.5:1234`, `[2001:db8::1]:443`), is dropped: it never names another client.
 */
export function canonicalIp(text: string): string | null {
  let address = text.trim();
  const v4 = WITH_PORT_V4.exec(address);
  if (v4) {
    if (!isPort(v4[2])) return null;
    address = v4[1]!;
  }
  const v6 = BRACKETED_V6.exec(address);
  if (v6) {
    if (!isPort(v6[2]) || !isIPv6(v6[1]!)) return null;
    address = v6[1]!;
  }
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return null;
  const groups = ipv6Groups(address.replace(/%.*$/, ''));
  if (!groups) return null;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return formatIpv6(groups);
}

/**
 * The key a rate limit counts a client under: an IPv4 address as it is, an IPv6 address as its
 * network of `ipv6Prefix` bits (`2001:db8:1:200::/56`), since one subscriber holds a whole /64 or
 * more and could otherwise rotate through it. `address` is a `canonicalIp` (or UNKNOWN_CLIENT).
 */
export function clientKey(address: string, ipv6Prefix: number = DEFAULT_IPV6_PREFIX): string {
  if (!address.includes(':')) return address;
  const groups = ipv6Groups(address);
  if (!groups) return UNKNOWN_CLIENT;
  const masked = groups.map((group, i) => {
    const bits = Math.min(16, Math.max(0, ipv6Prefix - i * 16));
    return bits === 0 ? 0 : group & (0xffff << (16 - bits)) & 0xffff;
  });
  return `${formatIpv6(masked)}/${ipv6Prefix}`;
}

/** The eight 16-bit groups of an IPv6 address that `isIPv6` accepted (a dotted IPv4 tail included). */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const fill = 8 - left.length - right.length;
  if (rest === undefined ? fill !== 0 : fill < 1) return null;
  const groups = [...left, ...Array<number>(fill).fill(0), ...right];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** RFC 5952: lower-case hex without leading zeros; the longest run of two or more zero groups (the first of equals) is `::`. */
function formatIpv6(groups: readonly number[]): string {
  let best = { start: -1, length: 1 };
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}
