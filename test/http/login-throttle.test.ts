/**
 * Failed logins per account over HTTP: the same 429, Retry-After and RateLimit headers as the
 * per-IP limits, for registered and unknown addresses alike (issue 9).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@sl-accounts/service/http/testing';
import type { RunningServer } from '@sl-accounts/server';
import { request, type ApiResponse } from '../support/client.ts';
import { MATRIX, describeEachServer, startTestServer } from '../support/server.ts';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };

describeEachServer('failed logins per account', MATRIX, ({ host, store }) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  // Time stands still unless a case moves it: every window's remaining seconds are exact.
  const clock = new ManualClock();
  let ip = 0;
  // Each guess from a new address: the per-IP limit never applies.
  const login = (email: string, password: string) => request(server!.url, '/api/login', { json: { email, password }, ip: `198.18.${++ip >> 8}.${ip & 255}` });
  const shape = (res: ApiResponse) => ({
    status: res.status,
    body: res.body,
    policy: res.headers.get('ratelimit-policy'),
    quota: res.headers.get('ratelimit'),
    retryAfter: res.headers.get('retry-after'),
  });

  it('20 failures from 20 addresses, then 429 with Retry-After and both policies; an unknown e-mail answers exactly alike', async () => {
    server = await startTestServer({ host, store, clock, env: { TRUST_PROXY: '1' } });
    expect((await request(server.url, '/api/signup', { json: ADA, ip: '192.0.2.1' })).status).toBe(201);
    const runs: Record<string, ReturnType<typeof shape>[]> = {};
    for (const email of [ADA.email, 'nobody@example.com']) {
      runs[email] = [];
      for (let i = 0; i < 21; i++) runs[email].push(shape(await login(email, `wrong guess ${i}`)));
    }
    expect(runs['nobody@example.com']).toEqual(runs[ADA.email]);
    const run = runs[ADA.email]!;
    expect(run.slice(0, 20).map((r) => r.status)).toEqual(Array(20).fill(401));
    expect(run[0]).toMatchObject({ policy: '"login";q=20;w=900, "login-account";q=20;w=900', quota: '"login";r=19;t=900, "login-account";r=19;t=900', retryAfter: null });
    expect(run[20]).toEqual({
      status: 429,
      body: { ok: false, error: 'Too many requests; try again in 900 seconds', code: 'rate_limited' },
      policy: '"login";q=20;w=900, "login-account";q=20;w=900',
      quota: '"login";r=19;t=900, "login-account";r=0;t=900',
      retryAfter: '900',
    });
    const limited = await login(ADA.email, ADA.password);
    expect(limited.status).toBe(429);
    expect(limited.setCookies).toEqual([]);
    expect(limited.headers.get('retry-after')).toBe('900');
    expect(limited.headers.get('ratelimit')).toBe('"login";r=19;t=900, "login-account";r=0;t=900');
    expect((await login('grace@example.com', 'another account')).status).toBe(401);
  });

  it('successful logins are not counted; LOGIN_FAILURES_PER_ACCOUNT and LOGIN_FAILURE_WINDOW_SECONDS set the limit', async () => {
    server = await startTestServer({ host, store, clock, env: { TRUST_PROXY: '1', LOGIN_FAILURES_PER_ACCOUNT: '2', LOGIN_FAILURE_WINDOW_SECONDS: '60' } });
    expect((await request(server.url, '/api/signup', { json: ADA, ip: '192.0.2.1' })).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await login(ADA.email, ADA.password)).status).toBe(200);
    const ok = await login(ADA.email, ADA.password);
    expect(ok.headers.get('ratelimit-policy')).toBe('"login";q=20;w=900, "login-account";q=2;w=60');
    expect(ok.headers.get('ratelimit')).toBe('"login";r=19;t=900, "login-account";r=2;t=60');
    expect((await login(ADA.email, 'wrong')).status).toBe(401);
    expect((await login(ADA.email, 'wrong')).status).toBe(401);
    expect((await login(ADA.email, ADA.password)).status).toBe(429);
  });

  it('LOGIN_FAILURES_PER_ACCOUNT=0 turns it off: only the per-IP limit applies', async () => {
    server = await startTestServer({ host, store, clock, env: { TRUST_PROXY: '1', LOGIN_FAILURES_PER_ACCOUNT: '0' } });
    for (let i = 0; i < 25; i++) {
      const res = await login('nobody@example.com', 'wrong');
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit-policy')).toBe('"login";q=20;w=900');
    }
  });

  it('of 60 concurrent guesses at one account from 60 addresses, 20 are checked and 40 get 429', async () => {
    server = await startTestServer({ host, store, clock, env: { TRUST_PROXY: '1' } });
    const statuses = (await Promise.all(Array.from({ length: 60 }, (_, i) => login('target@example.com', `guess ${i}`)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
  });
});

describe('the per-account lock on the memory store, under a flood of other clients', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('with MEMORY_RATE_LIMIT_KEYS=200, 250 contact messages from 250 other addresses do not lift it', async () => {
    server = await startTestServer({ store: 'memory', env: { TRUST_PROXY: '1', MEMORY_RATE_LIMIT_KEYS: '200' } });
    let ip = 0;
    const from = () => `198.18.${++ip >> 8}.${ip & 255}`;
    expect((await request(server.url, '/api/signup', { json: ADA, ip: from() })).status).toBe(201);
    for (let i = 0; i < 20; i++) expect((await request(server.url, '/api/login', { json: { email: ADA.email, password: `wrong guess ${i}` }, ip: from() })).status).toBe(401);
    expect((await request(server.url, '/api/login', { json: ADA, ip: from() })).status).toBe(429);
    for (let i = 0; i < 250; i++) {
      const contact = { name: 'Flood', email: `flood${i}@example.com`, message: 'One of many messages.' };
      expect((await request(server.url, '/api/contact', { json: contact, ip: from() })).status).toBe(200);
    }
    const owner = await request(server.url, '/api/login', { json: ADA, ip: from() });
    expect(owner.status).toBe(429);
    expect(owner.headers.get('ratelimit')).toMatch(/"login-account";r=0;/);
  });
});
