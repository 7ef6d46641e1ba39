/**
 * Session lifetime over HTTP with a controlled clock, and the default work factor end to end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SESSION_TTL_MS } from '@sl/core';
import type { RunningServer } from '@sl/server';
import { request, sessionFrom } from '../support/client.ts';
import { ManualClock } from '@sl/core/testing';
import { pino } from 'pino';
import { loadConfig, startServer } from '@sl/server';
import { HOSTS, MATRIX, describeEachServer, startTestServer } from '../support/server.ts';

describeEachServer('sessions', MATRIX.filter((row) => row.host === 'koa'), ({ store }) => {
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

describe('the default work factor', () => {
  it('signs up and logs in with 600000 PBKDF2 iterations when PBKDF2_ITERATIONS is unset', async () => {
    const config = loadConfig({ PORT: '0', STORE: 'memory' });
    expect(config.pbkdf2Iterations).toBe(600_000);
    const server = await startServer(config, HOSTS.koa, { logger: pino({ level: 'silent' }) });
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
