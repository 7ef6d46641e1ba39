/**
 * The origin a document is written from: a Host header the contract checks before it writes it into
 * a link, and forwarded headers only from trusted proxies. (Odd Host headers over a socket are
 * test/discovery/hosts.test.ts's; these are the rules themselves.)
 */
import { describe, expect, it } from 'vitest';
import { baseUrlOf, type HttpRequest } from '@sl-accounts/service/http';
// Internals of this package: what the contract accepts as a host, and the request's origin.
import { checkedHost, originHeaders, requestOrigin } from '../src/base-url.ts';

const requestWith = (headers: Record<string, string>, secure = false): HttpRequest => ({ method: 'GET', url: '/openapi.json', headers, remoteAddress: '192.0.2.1', secure, body: null });

describe('checkedHost', () => {
  it.each([
    ['example.com', 'example.com'],
    ['Example.COM', 'example.com'],
    ['example.com:8080', 'example.com:8080'],
    ['example.com.', 'example.com.'],
    ['localhost', 'localhost'],
    ['localhost:3000', 'localhost:3000'],
    ['a_b.x-y.example', 'a_b.x-y.example'],
    [`${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
    ['127.0.0.1', '127.0.0.1'],
    ['1.2.3.4:65535', '1.2.3.4:65535'],
    ['[::1]', '[::1]'],
    ['[::1]:8080', '[::1]:8080'],
    ['[2001:DB8::1]', '[2001:db8::1]'],
  ])('takes %j as %j', (value, host) => {
    expect(checkedHost(value)).toBe(host);
  });

  it.each([
    ['', 'empty'],
    [':80', 'a port alone'],
    ['example.com:', 'an empty port'],
    ['example.com:65536', 'a port out of range'],
    ['example.com:123456', 'a port of six digits'],
    ['exa mple.com', 'a space'],
    ['user@example.com', 'user information'],
    ['example.com/path', 'a path'],
    ['-a.example', 'a label that starts with a hyphen'],
    ['a-.example', 'a label that ends with a hyphen'],
    ['a..example', 'an empty label'],
    [`${'a'.repeat(64)}.com`, 'a label of 64 characters'],
    [`${'a.'.repeat(127)}com`, 'a name over 253 characters'],
    ['1.2.3', 'a last label that is a number (URL parsers read an IPv4 address)'],
    ['a.123', 'a last label that is a number'],
    ['256.1.1.1', 'an IPv4 address out of range'],
    ['::1', 'an IPv6 address without brackets'],
    ['[::1', 'an unclosed bracket'],
    ['[fe80::1%25eth0]', 'an IPv6 zone'],
    ['[example.com]', 'a name in brackets'],
  ])('refuses %j (%s)', (value) => {
    expect(checkedHost(value)).toBeNull();
  });
});

describe('requestOrigin', () => {
  it('is the scheme of the connection and the checked Host, in lower case', () => {
    expect(requestOrigin(requestWith({ host: 'Example.com:8080' }), 0)).toEqual({ origin: 'http://example.com:8080', ignored: [] });
    expect(requestOrigin(requestWith({ host: 'example.com' }, true), 0)).toEqual({ origin: 'https://example.com', ignored: [] });
  });

  it('is null without a valid Host', () => {
    expect(requestOrigin(requestWith({}), 0).origin).toBeNull();
    expect(requestOrigin(requestWith({ host: 'exa mple.com' }), 0).origin).toBeNull();
  });

  it('ignores forwarded headers without a trusted proxy, and says nothing of them', () => {
    const forwarded = requestWith({ host: 'example.com', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' });
    expect(requestOrigin(forwarded, 0)).toEqual({ origin: 'http://example.com', ignored: [] });
  });

  it('believes the first value of each forwarded header behind a trusted proxy', () => {
    const forwarded = requestWith({ host: 'internal:3000', 'x-forwarded-host': 'API.example.org, internal', 'x-forwarded-proto': 'HTTPS, http' });
    expect(requestOrigin(forwarded, 1)).toEqual({ origin: 'https://api.example.org', ignored: [] });
  });

  it('falls back to the connection’s own view for an invalid forwarded value, and names what it ignored', () => {
    const forwarded = requestWith({ host: 'example.com', 'x-forwarded-host': 'not a host', 'x-forwarded-proto': 'ftp' });
    expect(requestOrigin(forwarded, 1)).toEqual({ origin: 'http://example.com', ignored: ['X-Forwarded-Proto', 'X-Forwarded-Host'] });
  });

  it('keeps https on a TLS connection whatever a proxy forwards', () => {
    expect(requestOrigin(requestWith({ host: 'example.com', 'x-forwarded-proto': 'http' }, true), 1).origin).toBe('https://example.com');
  });
});

describe('baseUrlOf and originHeaders', () => {
  it('prefer PUBLIC_URL, else the request’s origin, else http://localhost (for transports that cannot refuse)', () => {
    expect(baseUrlOf(requestWith({ host: 'example.com' }), 'https://accounts.example.org', 0)).toBe('https://accounts.example.org');
    expect(baseUrlOf(requestWith({ host: 'example.com' }), undefined, 0)).toBe('http://example.com');
    expect(baseUrlOf(requestWith({ host: 'a..b' }), undefined, 0)).toBe('http://localhost');
  });

  it('name the headers an origin-written document varies with', () => {
    expect(originHeaders(0)).toBe('Host');
    expect(originHeaders(2)).toBe('Host, X-Forwarded-Host, X-Forwarded-Proto');
  });
});
