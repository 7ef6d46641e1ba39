/**
 * The per-account failure limit cannot keep the owner out (issue 16): a browser that signed in to
 * the account before presents its device cookie and is counted on its own, while everyone else
 * still shares the account's limit per window.
 */
import { afterEach, expect, it } from 'vitest';
import { pino } from 'pino';
import { ManualClock } from '@sl-accounts/service/core/testing';
import { loadConfig, startServer, type RunningServer } from '@sl-accounts/server';
import { createTestDatabase } from '@sl-accounts/store-postgres/testing';
import { request, sessionFrom, type ApiResponse } from '../support/client.ts';
import { HOST_KINDS, MATRIX, STORES, TEST_ITERATIONS, describeEachServer, hostListener, startTestServer } from '../support/server.ts';

const OWNER = { name: 'Olive', email: 'olive@example.com', password: 'correct horse battery' };
const WINDOW_MS = 15 * 60_000;

const deviceFrom = (res: ApiResponse) => res.setCookies.map((c) => /^sl_device=([^;]+)/.exec(c)?.[1]).find(Boolean);

describeEachServer('device cookies', MATRIX.filter((row) => row.host === HOST_KINDS[0]), ({ host, store }) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  let ip = 0;
  // Each request from a new address: the per-IP limit never applies, only the per-account one.
  const login = (password: string, cookie?: string, email = OWNER.email) =>
    request(server!.url, '/api/login', { json: { email, password }, ip: `198.18.${++ip >> 8}.${ip & 255}`, ...(cookie ? { headers: { cookie } } : {}) });

  it('a victim who signed in before logs in through a lockout kept up by others, who still get at most 20 guesses per window', async () => {
    const clock = new ManualClock(new Date());
    server = await startTestServer({ host, store, clock, env: { TRUST_PROXY: '1' } });
    const signup = await request(server.url, '/api/signup', { json: OWNER, ip: '192.0.2.1' });
    expect(signup.status).toBe(201);
    const device = deviceFrom(signup)!;
    expect(signup.setCookies.find((c) => c.startsWith('sl_device='))).toMatch(/^sl_device=[\w.-]+; Max-Age=31536000; Path=\/api\/login; HttpOnly; Secure; SameSite=Lax$/);

    for (let window = 0; window < 3; window++) {
      // The attack of the report: as many wrong passwords as are taken, whenever the window resets.
      const guesses: number[] = [];
      for (let i = 0; i < 30; i++) guesses.push((await login(`wrong guess ${window}.${i}`)).status);
      expect(guesses.filter((s) => s === 401)).toHaveLength(20);
      expect(guesses.slice(20)).toEqual(Array(10).fill(429));
      // The lockout is real for a client without the cookie, the owner's right password included.
      expect((await login(OWNER.password)).status).toBe(429);
      // Another account's device cookie, and a tampered one, are worth nothing here.
      const tampered = `${device.slice(0, -2)}${device.endsWith('AA') ? 'BB' : 'AA'}`;
      expect((await login(OWNER.password, `sl_device=${tampered}`)).status).toBe(429);
      // The owner's browser is not locked out.
      const owner = await login(OWNER.password, `sl_device=garbage; sl_device=${device}`);
      expect(owner.status).toBe(200);
      expect(sessionFrom(owner)).toBeDefined();
      expect(deviceFrom(owner)).toMatch(/^[\w-]+\.\d+\.[\w-]+$/);
      expect(owner.headers.get('ratelimit')).toMatch(/"login-device";r=20;/);
      // Nor did the owner's login give the others a guess back.
      expect((await login('one more guess')).status).toBe(429);
      clock.advance(WINDOW_MS);
    }
  });

  it('a device cookie’s own failures meet a limit of their own, which locks out that browser only', async () => {
    server = await startTestServer({ host, store, env: { TRUST_PROXY: '1', LOGIN_FAILURES_PER_ACCOUNT: '3' } });
    const device = deviceFrom(await request(server.url, '/api/signup', { json: OWNER, ip: '192.0.2.1' }))!;
    const other = deviceFrom(await login(OWNER.password))!;
    const withDevice: number[] = [];
    for (let i = 0; i < 5; i++) withDevice.push((await login(`wrong ${i}`, `sl_device=${device}`)).status);
    expect(withDevice).toEqual([401, 401, 401, 429, 429]);
    const locked = await login(OWNER.password, `sl_device=${device}`);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('ratelimit')).toMatch(/"login-device";r=0;/);
    // The account's shared limit and the other browser's own are untouched.
    expect((await login(OWNER.password)).status).toBe(200);
    expect((await login(OWNER.password, `sl_device=${other}`)).status).toBe(200);
  });

  it('a deleted account’s device cookie counts nothing for a new account at the same address', async () => {
    server = await startTestServer({ host, store, env: { TRUST_PROXY: '1', LOGIN_FAILURES_PER_ACCOUNT: '2' } });
    const signup = await request(server.url, '/api/signup', { json: OWNER, ip: '192.0.2.1' });
    const old = deviceFrom(signup)!;
    const deleted = await request(server.url, '/api/me', { method: 'DELETE', json: { password: OWNER.password }, ip: '192.0.2.1', headers: { cookie: `sl_session=${sessionFrom(signup)}` } });
    expect(deleted.status).toBe(200);
    const again = await request(server.url, '/api/signup', { json: { ...OWNER, password: 'someone else now' }, ip: '192.0.2.2' });
    expect(again.status).toBe(201);
    // Others lock the new account; the old account's cookie does not get past that lock.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await login(`wrong ${i}`)).status);
    expect(statuses).toEqual([401, 401, 429]);
    expect((await login('someone else now', `sl_device=${old}`)).status).toBe(429);
    expect((await login('someone else now', `sl_device=${deviceFrom(again)}`)).status).toBe(200);
  });

  it('a device cookie issued for another account counts nothing here', async () => {
    server = await startTestServer({ host, store, env: { TRUST_PROXY: '1', LOGIN_FAILURES_PER_ACCOUNT: '2' } });
    await request(server.url, '/api/signup', { json: OWNER, ip: '192.0.2.1' });
    const mallory = deviceFrom(await request(server.url, '/api/signup', { json: { name: 'Mal', email: 'mal@example.com', password: 'mallory pw' }, ip: '192.0.2.2' }))!;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await login(`wrong ${i}`, `sl_device=${mallory}`)).status);
    expect(statuses).toEqual([401, 401, 429, 429]);
  });
});

const postgres = STORES.find((s) => s.kind === 'postgres')!;
it.skipIf(postgres.skip !== undefined)(`a device cookie one server issued is honoured by another on the same Postgres (${postgres.title})`, async () => {
  const database = await createTestDatabase();
  const servers: RunningServer[] = [];
  try {
    const config = loadConfig({ PORT: '0', PBKDF2_ITERATIONS: String(TEST_ITERATIONS), LOG_LEVEL: 'silent', STORE: 'postgres', DATABASE_URL: database.url, TRUST_PROXY: '1', LOGIN_FAILURES_PER_ACCOUNT: '2' });
    for (let i = 0; i < 2; i++) servers.push(await startServer(config, await hostListener('koa'), { logger: pino({ level: 'silent' }) }));
    const [a, b] = servers as [RunningServer, RunningServer];
    const device = deviceFrom(await request(a.url, '/api/signup', { json: OWNER, ip: '192.0.2.1' }))!;
    for (let i = 0; i < 3; i++) await request(a.url, '/api/login', { json: { email: OWNER.email, password: 'wrong' }, ip: `198.19.0.${i + 1}` });
    expect((await request(b.url, '/api/login', { json: { email: OWNER.email, password: OWNER.password }, ip: '198.19.1.1' })).status).toBe(429);
    const owner = await request(b.url, '/api/login', { json: { email: OWNER.email, password: OWNER.password }, ip: '198.19.1.2', headers: { cookie: `sl_device=${device}` } });
    expect(owner.status).toBe(200);
  } finally {
    for (const s of servers) await s.close();
    await database.drop();
  }
});

it(`under BASE_PATH the device cookie names the login there: signup and login (${HOST_KINDS[0]} host, memory store)`, async () => {
  const server = await startTestServer({ host: HOST_KINDS[0], env: { BASE_PATH: '/accounts', TRUST_PROXY: '1', LOGIN_FAILURES_PER_ACCOUNT: '2' } });
  try {
    const at = (path: string, json: unknown, ip: string, cookie?: string) => request(server.url, `/accounts${path}`, { json, ip, basePath: '/accounts', ...(cookie ? { headers: { cookie } } : {}) });
    const signup = await at('/api/signup', OWNER, '192.0.2.1');
    expect(signup.setCookies.find((c) => c.startsWith('sl_device='))).toMatch(/; Path=\/accounts\/api\/login; HttpOnly; Secure; SameSite=Lax$/);
    const login = await at('/api/login', { email: OWNER.email, password: OWNER.password }, '192.0.2.2', `sl_device=${deviceFrom(signup)}`);
    expect(login.setCookies.find((c) => c.startsWith('sl_device='))).toMatch(/; Path=\/accounts\/api\/login;/);
  } finally {
    await server.close();
  }
});
