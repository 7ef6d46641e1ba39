/**
 * What never reaches a client or a log: stack traces, internal messages, passwords, tokens, cookies.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { RunningServer } from '@sl/server';
import { request, sessionFrom } from '../support/client.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

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

describe.each(HOST_KINDS)('logs on the %s host', (host) => {
  let server: RunningServer | undefined;
  afterEach(() => server?.close());

  it('one line per request with request id, status and duration, and no secrets', async () => {
    const { logger, lines } = capturingLogger();
    server = await startTestServer({ host, logger });
    const password = 'hunter2-super-secret';
    const signup = await request(server.url, '/api/signup', { json: { name: 'Logan', email: 'logan@example.com', password } });
    const token = sessionFrom(signup)!;
    await request(server.url, '/api/me?token=abc', { session: token });
    await request(server.url, '/api/login', { json: { email: 'logan@example.com', password: 'wrong-secret-pw' }, session: token });
    // No waiting: the contract writes the line before the answer leaves, and this logger writes synchronously.
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

describe.each(HOST_KINDS)('unexpected errors on the %s host', (host) => {
  let server: RunningServer | undefined;
  afterEach(() => server?.close());

  it('answer 500 ErrorResponse with a generic text; the details go to the log only', async () => {
    const { logger, lines } = capturingLogger();
    server = await startTestServer({ host, logger });
    server.accounts.me = async () => {
      throw new Error('db password is swordfish');
    };
    const res = await request(server.url, '/api/me', { session: 'x' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ ok: false, error: 'Internal server error' });
    expect(JSON.stringify(res.body)).not.toContain('swordfish');
    expect(lines.join('\n')).toContain('swordfish');
  });
});
