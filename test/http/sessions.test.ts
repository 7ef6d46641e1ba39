/**
 * Session lifetime over HTTP with a controlled clock, and the default work factor end to end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SESSION_TTL_MS } from '@sl-accounts/service/core';
import type { RunningServer } from '@sl-accounts/server';
import { request, sessionFrom } from '../support/client.ts';
import { poll } from '../support/poll.ts';
import { ManualClock } from '@sl-accounts/service/core/testing';
import { pino } from 'pino';
import { loadConfig, startServer } from '@sl-accounts/server';
import { HOST_KINDS, MATRIX, describeEachServer, hostListener, startTestServer } from '../support/server.ts';

describeEachServer('sessions', MATRIX.filter((row) => row.host === HOST_KINDS[0]), ({ store }) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a session is valid until exactly 7 days after issue, then 401 with the cookie cleared', async () => {
    const clock = new ManualClock(new Date());
    server = await startTestServer({ store, clock });
    const res = await request(server.url, '/api/signup', { json: { name: 'Tim', email: 'tim@example.com', password: 'seven days' } });
    const token = sessionFrom(res)!;
    clock.advance(SESSION_TTL_MS - 1000);
    expect((await request(server.url, '/api/me', { session: token })).status).toBe(200);
    clock.advance(1000);
    const expired = await request(server.url, '/api/me', { session: token });
    expect(expired.status).toBe(401);
    expect(expired.setCookies[0]).toMatch(/^sl_session=; Max-Age=0;/);
    expect((await request(server.url, '/api/logout', { method: 'POST', session: token })).status).toBe(401);
  });
});

describeEachServer('several sl_session cookies', MATRIX.filter((row) => row.host === HOST_KINDS[0]), ({ store }) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const withCookie = (cookie: string, method = 'GET') => ({ method, headers: { cookie } });

  it('the first value that names a live session is used, wherever it comes; logout ends that one', async () => {
    const clock = new ManualClock(new Date());
    server = await startTestServer({ store, clock });
    const signup = await request(server.url, '/api/signup', { json: { name: 'Cam', email: 'cam@example.com', password: 'two cookies' } });
    const valid = sessionFrom(signup)!;
    // A session that has expired, and one logged out: both stale, both before the live one.
    const old = sessionFrom(await request(server.url, '/api/login', { json: { email: 'cam@example.com', password: 'two cookies' } }))!;
    clock.advance(SESSION_TTL_MS / 2);
    const fresh = sessionFrom(await request(server.url, '/api/login', { json: { email: 'cam@example.com', password: 'two cookies' } }))!;
    clock.advance(SESSION_TTL_MS / 2);
    expect((await request(server.url, '/api/me', { session: old })).status).toBe(401);
    expect((await request(server.url, '/api/me', { session: valid })).status).toBe(401);

    for (const cookie of [`sl_session=garbage; sl_session=${fresh}`, `theme=dark; sl_session=; sl_session=${old}; sl_session=garbage;sl_session=${fresh}`, `sl_session=${fresh}; sl_session=garbage`]) {
      const me = await request(server.url, '/api/me', withCookie(cookie));
      expect(me.status, cookie).toBe(200);
      expect(me.body).toMatchObject({ ok: true, user: { email: 'cam@example.com' } });
    }
    const logout = await request(server.url, '/api/logout', withCookie(`sl_session=garbage; sl_session=${valid}; sl_session=${fresh}`, 'POST'));
    expect(logout.status).toBe(200);
    expect((await request(server.url, '/api/me', { session: fresh })).status).toBe(401);
    expect((await request(server.url, '/api/logout', withCookie(`sl_session=garbage; sl_session=${fresh}`, 'POST'))).status).toBe(401);
  });

  it('a login ends every session presented, so one planted under a longer path cannot shadow the fresh one', async () => {
    server = await startTestServer({ store });
    await request(server.url, '/api/signup', { json: { name: 'Eve', email: 'eve@example.com', password: 'attacker pw' } });
    const planted = sessionFrom(await request(server.url, '/api/login', { json: { email: 'eve@example.com', password: 'attacker pw' } }))!;
    await request(server.url, '/api/signup', { json: { name: 'Vic', email: 'vic@example.com', password: 'victim pw!' } });
    const login = await request(server.url, '/api/login', { json: { email: 'vic@example.com', password: 'victim pw!' }, headers: { cookie: `sl_session=stale; sl_session=${planted}` } });
    const victim = sessionFrom(login)!;
    // The browser keeps the planted cookie (other path) and sends it first.
    const me = await request(server.url, '/api/me', withCookie(`sl_session=${planted}; sl_session=${victim}`));
    expect(me.body).toMatchObject({ ok: true, user: { email: 'vic@example.com' } });
    expect((await request(server.url, '/api/me', { session: planted })).status).toBe(401);
  });
});

describeEachServer('sessions per user', MATRIX.filter((row) => row.host === HOST_KINDS[0]), ({ store }) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('with MAX_SESSIONS_PER_USER=3 a login beyond it ends the oldest session, refused through the session cache as soon as the feed tells it', async () => {
    const clock = new ManualClock(new Date());
    server = await startTestServer({ store, clock, env: { MAX_SESSIONS_PER_USER: '3' } });
    const account = { email: 'many@example.com', password: 'many devices' };
    const tokens = [sessionFrom(await request(server.url, '/api/signup', { json: { name: 'Many', ...account } }))!];
    for (let i = 0; i < 4; i++) {
      clock.advance(1000);
      // Each one asked for once, so the cache holds it when it is ended.
      expect((await request(server.url, '/api/me', { session: tokens.at(-1)! })).status).toBe(200);
      tokens.push(sessionFrom(await request(server.url, '/api/login', { json: account }))!);
    }
    // On a Postgres server the cache hears of the ended sessions through LISTEN/NOTIFY, within its staleness bound.
    const me = (token: string) => async () => (await request(server!.url, '/api/me', { session: token })).status;
    for (const token of tokens.slice(0, 2)) expect(await poll(me(token), (status) => status === 401, 10_000)).toBe(401);
    for (const token of tokens.slice(2)) expect(await me(token)()).toBe(200);
  });
});

describe('the default work factor', () => {
  it('signs up and logs in with 600000 PBKDF2 iterations when PBKDF2_ITERATIONS is unset', { tags: ['real-cost', 'socket'] }, async () => {
    const config = loadConfig({ PORT: '0', STORE: 'memory' });
    expect(config.pbkdf2Iterations).toBe(600_000);
    const server = await startServer(config, await hostListener('koa'), { logger: pino({ level: 'silent' }) });
    try {
      const creds = { email: 'strong@example.com', password: 'six hundred thousand' };
      expect((await request(server.url, '/api/signup', { json: { name: 'Strong', ...creds } })).status).toBe(201);
      expect((await request(server.url, '/api/login', { json: creds })).status).toBe(200);
      expect((await request(server.url, '/api/login', { json: { ...creds, password: 'wrong' } })).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});
