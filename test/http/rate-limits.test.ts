/**
 * Per-IP limits over HTTP: the spec's numbers, Retry-After, RateLimit headers, and which IP counts.
 */
import { afterEach, expect, it } from 'vitest';
import { ManualClock } from '@sl-accounts/service/http/testing';
import type { RunningServer } from '@sl-accounts/server';
import { request, type ApiResponse } from '../support/client.ts';
import { MATRIX, describeEachServer, startTestServer } from '../support/server.ts';

const BODIES = {
  // A fresh e-mail each time, so the per-account limit on failed logins stays out of these per-IP cases.
  login: (() => {
    let i = 0;
    return () => ({ email: `nobody${++i}.${Date.now()}@example.com`, password: 'wrong password' });
  })(),
  signup: (() => {
    let i = 0;
    return () => ({ name: 'Limit Tester', email: `limit${++i}.${Date.now()}@example.com`, password: 'long enough' });
  })(),
  contact: () => ({ name: 'Lim', email: 'lim@example.com', message: 'within the limit' }),
};

describeEachServer('rate limits', MATRIX, ({ host, store }) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.each([
    ['login', 20, 900, 401],
    ['signup', 10, 3600, 201],
    ['contact', 5, 3600, 200],
  ] as const)('%s: %i requests per IP, then 429 with Retry-After; another IP is unaffected', async (op, limit, window, okStatus) => {
    // Time stands still: every window's remaining seconds are exact.
    server = await startTestServer({ host, store, clock: new ManualClock(), env: { TRUST_PROXY: '1' } });
    const call = (ip: string) => request(server!.url, `/api/${op}`, { json: BODIES[op](), ip });
    // Login lists its per-account limit too (each call here tries another e-mail address).
    const account = op === 'login' ? { policy: ', "login-account";q=20;w=900', quota: ', "login-account";r=19;t=900' } : { policy: '', quota: '' };
    for (let i = 1; i <= limit; i++) {
      const res = await call('198.51.100.1');
      expect(res.status).toBe(okStatus);
      expect(res.headers.get('ratelimit-policy')).toBe(`"${op}";q=${limit};w=${window}${account.policy}`);
      expect(res.headers.get('ratelimit')).toBe(`"${op}";r=${limit - i};t=${window}${account.quota}`);
    }
    const limited = await call('198.51.100.1');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
    expect(limited.headers.get('retry-after')).toBe(String(window));
    expect(limited.headers.get('ratelimit')).toBe(`"${op}";r=0;t=${window}`);
    expect(limited.setCookies).toEqual([]);

    expect((await call('198.51.100.2')).status).toBe(okStatus);
  });

  it('sends RateLimit headers on every answer of a limited operation, errors included', async () => {
    server = await startTestServer({ host, store, clock: new ManualClock(), env: { TRUST_PROXY: '1' } });
    const invalid = await request(server.url, '/api/signup', { json: {}, ip: '198.51.100.9' });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('ratelimit')).toBe('"signup";r=9;t=3600');
    expect((await request(server.url, '/api/health', { ip: '198.51.100.9' })).headers.get('ratelimit')).toBeNull();
  });

  // Changed by issue 9: a body that is not JSON used to be counted too; now it is refused before
  // counting (a page on another site can send only such bodies), and every JSON request still counts.
  it('counts invalid and unreadable JSON requests too, before validation; a body that is not JSON is refused uncounted', async () => {
    server = await startTestServer({ host, store, env: { TRUST_PROXY: '1' } });
    const ip = '198.51.100.3';
    const bad: (() => Promise<ApiResponse>)[] = [
      () => request(server!.url, '/api/contact', { json: {}, ip }),
      () => request(server!.url, '/api/contact', { raw: '{oops', headers: { 'content-type': 'application/json' }, ip }),
      () => request(server!.url, '/api/contact', { raw: '{"name":"x"}', headers: { 'content-type': 'application/merge-patch+json' }, ip }),
      () => request(server!.url, '/api/contact', { raw: 'x', headers: { 'content-type': 'text/plain' }, ip }),
      () => request(server!.url, '/api/contact', { raw: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' }, ip }),
      () => request(server!.url, '/api/contact', { json: { message: 'x'.repeat(70_000) }, ip }),
    ];
    const answers = [];
    for (const send of bad) answers.push(await send());
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400, 413]);
    expect(answers.map((a) => a.headers.get('ratelimit'))).toEqual([
      expect.stringMatching(/^"contact";r=4;/),
      expect.stringMatching(/^"contact";r=3;/),
      expect.stringMatching(/^"contact";r=2;/),
      null,
      null,
      expect.stringMatching(/^"contact";r=1;/),
    ]);
    expect((await request(server.url, '/api/contact', { json: BODIES.contact(), ip })).status).toBe(200);
    expect((await request(server.url, '/api/contact', { json: BODIES.contact(), ip })).status).toBe(429);
  });

  it('the window resets: after it ends the client is allowed again', async () => {
    const clock = new ManualClock();
    server = await startTestServer({ host, store, clock, env: { TRUST_PROXY: '1' } });
    const call = () => request(server!.url, '/api/contact', { json: BODIES.contact(), ip: '198.51.100.4' });
    for (let i = 0; i < 5; i++) await call();
    expect((await call()).status).toBe(429);
    clock.advance(3600_000 - 1000);
    expect((await call()).headers.get('retry-after')).toBe('1');
    clock.advance(1000);
    expect((await call()).status).toBe(200);
  });

  it('ignores X-Forwarded-For without TRUST_PROXY: a client cannot pick its IP', async () => {
    server = await startTestServer({ host, store });
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await request(server.url, '/api/contact', { json: BODIES.contact(), ip: `203.0.113.${i}` })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('with TRUST_PROXY=1 counts the address the proxy appended, not what the client claimed', async () => {
    server = await startTestServer({ host, store, env: { TRUST_PROXY: '1' } });
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      // A spoofed first entry, then the one trusted hop's own view of the client.
      statuses.push((await request(server.url, '/api/contact', { json: BODIES.contact(), ip: `10.9.9.${i}, 192.0.2.77` })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});
