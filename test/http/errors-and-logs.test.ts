/**
 * What never reaches a client or a log: stack traces, internal messages, passwords, tokens, cookies.
 */
import { Writable } from 'node:stream';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createAccounts, Pbkdf2PasswordHasher, randomTokens, systemClock } from '@sl/core';
import { createMemoryStore } from '@sl/store-memory';
import { createApp } from '@sl/http-koa';
import type { RunningServer } from '../../packages/http-koa/src/main.ts';
import { request, sessionFrom } from '../support/client.ts';
import { startTestServer } from '../support/server.ts';

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, stream), lines };
}

describe('logs', () => {
  let server: RunningServer | undefined;
  afterEach(() => server?.close());

  it('one line per request with request id, status and duration, and no secrets', async () => {
    const { logger, lines } = capturingLogger();
    server = await startTestServer({ logger });
    const password = 'hunter2-super-secret';
    const signup = await request(server.url, '/api/signup', { json: { name: 'Logan', email: 'logan@example.com', password } });
    const token = sessionFrom(signup)!;
    await request(server.url, '/api/me?token=abc', { session: token });
    await request(server.url, '/api/login', { json: { email: 'logan@example.com', password: 'wrong-secret-pw' }, session: token });
    await new Promise((r) => setTimeout(r, 20));

    const requests = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    expect(requests.map((r) => [r.method, r.path, r.status])).toEqual([
      ['POST', '/api/signup', 201],
      ['GET', '/api/me', 200],
      ['POST', '/api/login', 401],
    ]);
    for (const r of requests) {
      expect(r.reqId).toMatch(/^[A-Za-z0-9_-]{8}-[0-9a-z]+$/);
      expect(typeof r.ms).toBe('number');
    }
    expect(signup.headers.get('x-request-id')).toBe(requests[0]!.reqId);
    const all = lines.join('\n');
    for (const secret of [password, 'wrong-secret-pw', token, 'sl_session', 'token=abc']) expect(all).not.toContain(secret);
  });
});

describe('unexpected errors', () => {
  it('answer 500 ErrorResponse with a generic text; the details go to the log only', async () => {
    const { logger, lines } = capturingLogger();
    const store = createMemoryStore();
    const accounts = createAccounts({ ...store, hasher: new Pbkdf2PasswordHasher({ iterations: 1000 }), clock: systemClock, tokens: randomTokens });
    const broken = { ...accounts, me: async () => { throw new Error('db password is swordfish'); } };
    const app = createApp({ accounts: broken, logger });
    const http = createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((r) => http.once('listening', r));
    try {
      const res = await request(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, '/api/me', { session: 'x' });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ ok: false, error: 'Internal server error' });
      expect(JSON.stringify(res.body)).not.toContain('swordfish');
      expect(lines.join('\n')).toContain('swordfish');
    } finally {
      http.close();
    }
  });
});
