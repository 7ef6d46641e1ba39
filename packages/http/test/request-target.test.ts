/**
 * How the contract reads a request target and a base path: every host routes by `requestPath`, and
 * `normaliseBasePath` is what BASE_PATH may be.
 */
import { describe, expect, it } from 'vitest';
import { headerValue, normaliseBasePath, requestPath } from '@sl-accounts/service/http';

describe('requestPath', () => {
  it.each([
    ['/api/me', '/api/me'],
    ['/', '/'],
    ['/api/me?x=1', '/api/me'],
    ['/api/me#top', '/api/me'],
    ['/api/me?x=1#top', '/api/me'],
    ['/api/me#top?x=1', '/api/me'],
    ['/api/me?', '/api/me'],
    // The absolute form (RFC 9112 3.2.2), as proxies send it.
    ['http://example.com/api/me?x=1', '/api/me'],
    ['https://example.com:8443/a/b#c', '/a/b'],
    ['http://example.com', '/'],
    ['http://example.com?x=1', '/'],
    // The asterisk form names no path: no route has it.
    ['*', '*'],
  ])('%j is the path %j', (target, path) => {
    expect(requestPath(target)).toBe(path);
  });
});

describe('normaliseBasePath', () => {
  it.each([
    [undefined, ''],
    ['', ''],
    ['/', ''],
    ['/accounts', '/accounts'],
    ['accounts', '/accounts'],
    ['/accounts/', '/accounts'],
    ['/accounts//', '/accounts'],
    ['/a/b', '/a/b'],
    ["/a-b_c.d~e!$&'()*+,;=:@", "/a-b_c.d~e!$&'()*+,;=:@"],
  ])('%j is %j', (given, normalised) => {
    expect(normaliseBasePath(given)).toBe(normalised);
  });

  it.each(['/a/../b', '/./a', '/..', '//a', '/a b', '/a?x=1', '/a#x', '/a%2Fb', '/ä', '/a\\b'])('refuses %j, naming BASE_PATH', (given) => {
    expect(() => normaliseBasePath(given)).toThrow(/^BASE_PATH must be a path such as \/accounts, not /);
  });
});

describe('headerValue', () => {
  it('gives a header as node:http holds it: a string, the first of a repeated one, or undefined', () => {
    const headers = { cookie: 'a=1', 'set-cookie': ['b=2', 'c=3'] };
    expect(headerValue(headers, 'cookie')).toBe('a=1');
    expect(headerValue(headers, 'set-cookie')).toBe('b=2');
    expect(headerValue(headers, 'host')).toBeUndefined();
  });
});
