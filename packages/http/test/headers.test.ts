/** What the contract writes and reads in headers: its cookies, the RateLimit headers, JSON media types. */
import { describe, expect, it } from 'vitest';
import { DEVICE_COOKIE, SESSION_COOKIE, clearedSessionCookie, deviceCookie, isJsonMediaType, sessionCookie } from '@sl-accounts/service/http';
// An internal of this package: the RateLimit headers of the statuses a use case counted.
import { rateLimitHeaders } from '../src/rate-limit-headers.ts';

describe('cookies', () => {
  it('sl_session carries the spec’s attributes, with its lifetime and the whole site as its path', () => {
    expect(SESSION_COOKIE).toBe('sl_session');
    expect(sessionCookie('abc_-123', 604_800)).toBe('sl_session=abc_-123; Max-Age=604800; Path=/; HttpOnly; Secure; SameSite=Lax');
  });

  it('a cleared sl_session has no value, Max-Age=0 and a past Expires, with the same path and attributes', () => {
    expect(clearedSessionCookie()).toBe('sl_session=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly; Secure; SameSite=Lax');
  });

  it('sl_device goes only to the login operation', () => {
    expect(DEVICE_COOKIE).toBe('sl_device');
    expect(deviceCookie('p.q', 31_536_000)).toBe('sl_device=p.q; Max-Age=31536000; Path=/api/login; HttpOnly; Secure; SameSite=Lax');
    expect(deviceCookie('p.q', 60, '/v1/accounts')).toBe('sl_device=p.q; Max-Age=60; Path=/v1/accounts/api/login; HttpOnly; Secure; SameSite=Lax');
  });
});

describe('rateLimitHeaders', () => {
  it('write nothing when no limit counted the request', () => {
    expect(rateLimitHeaders([])).toEqual({});
  });

  it('write one list item per policy, in the order they counted (draft-ietf-httpapi-ratelimit-headers-10)', () => {
    const statuses = [
      { policy: 'login', limit: 20, windowSeconds: 900, remaining: 19, resetSeconds: 900 },
      { policy: 'login-account', limit: 20, windowSeconds: 900, remaining: 0, resetSeconds: 431 },
    ];
    expect(rateLimitHeaders(statuses)).toEqual({
      'ratelimit-policy': '"login";q=20;w=900, "login-account";q=20;w=900',
      ratelimit: '"login";r=19;t=900, "login-account";r=0;t=431',
    });
  });
});

describe('isJsonMediaType', () => {
  it.each(['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', ' application/json ;charset=UTF-8', 'application/problem+json', 'application/merge-patch+json', 'application/vnd.api+json'])(
    '%j is JSON',
    (type) => expect(isJsonMediaType(type)).toBe(true),
  );

  it.each([undefined, '', 'text/json', 'text/plain', 'application/jsonx', 'application/x-json', 'application/json-seq', 'multipart/form-data', 'application/x-www-form-urlencoded', 'text/plain+json'])(
    '%j is not',
    (type) => expect(isJsonMediaType(type)).toBe(false),
  );
});
