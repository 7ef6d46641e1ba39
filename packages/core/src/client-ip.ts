/**
 * Client addresses: one canonical spelling per address, and the key a rate limit counts it under.
 * Every transport reaches the limits through the core, so every transport keys clients alike.
 */
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

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
 *
 * `node:net` decides what is an address (strict: no octal, no shorthand IPv4); ipaddr.js, which
 * accepts more, only reads and writes what it let through.
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
  const ip = parseIpv6(address.replace(/%.*$/, ''));
  if (!ip) return null;
  return ip.isIPv4MappedAddress() ? ip.toIPv4Address().toString() : ip.toRFC5952String();
}

/**
 * The key a rate limit counts a client under: an IPv4 address as it is, an IPv6 address as its
 * network of `ipv6Prefix` bits (`2001:db8:1:200::/56`), since one subscriber holds a whole /64 or
 * more and could otherwise rotate through it. `address` is a `canonicalIp` (or UNKNOWN_CLIENT).
 */
export function clientKey(address: string, ipv6Prefix: number = DEFAULT_IPV6_PREFIX): string {
  if (!address.includes(':')) return address;
  const ip = parseIpv6(address);
  if (!ip) return UNKNOWN_CLIENT;
  const mask = maskOf(ipv6Prefix);
  return `${new ipaddr.IPv6(ip.parts.map((part, i) => part & mask[i]!)).toRFC5952String()}/${ipv6Prefix}`;
}

/** The eight 16-bit groups of the mask of a prefix length, made once per length (a service uses one). */
const masks = new Map<number, readonly number[]>();
const maskOf = (prefix: number): readonly number[] => {
  let mask = masks.get(prefix);
  if (!mask) masks.set(prefix, (mask = ipaddr.IPv6.subnetMaskFromPrefixLength(prefix).parts));
  return mask;
};

/**
 * An IPv6 address `isIPv6` accepted, parsed; `null` for what ipaddr.js refuses after all. ipaddr.js
 * reads the deprecated IPv4-compatible form (`::5.5.5.5`) as IPv4-mapped; Node and RFC 4291 read it
 * as `::505:505`, and so does this service: that form gets an explicit zero group first, which
 * ipaddr.js reads as written.
 */
function parseIpv6(address: string): ipaddr.IPv6 | null {
  try {
    return ipaddr.IPv6.parse(DEPRECATED_COMPATIBLE.test(address) ? `::0:${address.slice(2)}` : address);
  } catch {
    return null;
  }
}

const DEPRECATED_COMPATIBLE = /^::\d+\.\d+\.\d+\.\d+$/;
