/**
 * What never reaches a client or a log: stack traces, internal messages, passwords, tokens, cookies.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { createTestDatabase, postgresServer, withSql } from '@sl-accounts/store-postgres/testing';
import { request, sessionFrom } from '../support/client.ts';
import { capturingLogger } from '../support/logger.ts';
import { poll } from '../support/poll.ts';
import { HOST_KINDS, STORES, startTestServer } from '../support/server.ts';

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
    expect(res.body).toEqual({ ok: false, error: 'Internal server error', code: 'internal_error' });
    expect(JSON.stringify(res.body)).not.toContain('swordfish');
    expect(lines.join('\n')).toContain('swordfish');
  });
});

function openConnections(running: RunningServer): Promise<number> {
  return new Promise((resolve, reject) => running.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

/** Writes `payload` on a fresh connection, then hangs up (`destroyAfterMs`: abruptly, before reading). */
function rawConnection(url: string, payload: string, destroyAfterMs?: number): Promise<void> {
  return new Promise((resolve) => {
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(payload);
      if (destroyAfterMs === undefined) socket.end();
      else setTimeout(() => socket.destroy(), destroyAfterMs);
    });
    socket.on('data', () => {}).on('error', () => {}).on('close', () => resolve());
  });
}

describe.each(HOST_KINDS)('client faults on the %s host', (host) => {
  let server: RunningServer | undefined;
  afterEach(() => server?.close());

  it('a client that hangs up or sends garbage gets one short info line per connection: no error level, no stack', { tags: ['socket'] }, async () => {
    const { logger, lines } = capturingLogger();
    server = await startTestServer({ host, logger });
    const body = '{"name":"Ada","email":"ada@example.com","message":"Hello there"}';
    await rawConnection(server.url, `POST /api/contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n${body}`);
    await rawConnection(server.url, 'POST /api/contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcdeXX');
    await rawConnection(server.url, 'NOT HTTP AT ALL\r\n\r\n');
    // A large answer to a client that is already gone (EPIPE or ECONNRESET while writing it).
    for (let i = 0; i < 3; i++) await rawConnection(server.url, 'GET /docs/api/scalar.js HTTP/1.1\r\nHost: x\r\n\r\n', 5);
    // Log lines go out once the server has seen each connection end: wait for that, not for a while.
    const expected = ['HPE_INVALID_EOF_STATE', 'HPE_STRICT', 'HPE_INVALID_METHOD'];
    const parse = () => lines.map((l) => JSON.parse(l) as { level: number; msg: string; code?: string; err?: unknown });
    const settled = async () => ({ open: await openConnections(server!), codes: new Set(parse().map((e) => e.code)) });
    const state = await poll(settled, ({ open, codes }) => open === 0 && expected.every((c) => codes.has(c)), 10_000);
    expect(state.open).toBe(0);
    const entries = parse();
    expect(entries.filter((e) => e.level >= 50)).toEqual([]);
    const faults = entries.filter((e) => e.level === 30 && e.msg.includes('the client hung up or sent a malformed request'));
    expect(faults.map((e) => e.code)).toEqual(expect.arrayContaining(expected));
    for (const e of faults) {
      expect(e.err).toBeUndefined();
      expect(JSON.stringify(e).length).toBeLessThan(250);
    }
  });
});

describe('the Postgres pool', { tags: ['database'] }, () => {
  it('logs an idle connection that the server dropped with its code and message only (no client object, no secret key)', async (ctx) => {
    const postgres = STORES.find((store) => store.kind === 'postgres')!;
    const pgServer = postgres.skip === undefined ? await postgresServer() : undefined;
    if (!pgServer) return ctx.skip(`needs PostgreSQL: ${postgres.skip ?? 'no server found'}`);
    const database = await createTestDatabase();
    const { logger, lines } = capturingLogger();
    const server = await startTestServer({ logger, env: { STORE: 'postgres', DATABASE_URL: database.url } });
    try {
      await Promise.all(Array.from({ length: 4 }, () => request(server.url, '/api/health')));
      const name = new URL(database.url).pathname.slice(1);
      const ended = await withSql(pgServer.url, (sql) =>
        sql.query<{ application_name: string; ended: boolean }>('select application_name, pg_terminate_backend(pid) as ended from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]),
      );
      // The pool's idle connections (the revocation feed has one of its own, with another name).
      const pooled = ended.rows.filter((row) => row.ended && row.application_name === 'sl-accounts').length;
      expect(pooled).toBeGreaterThan(0);
      // Every one of them noticed and dropped before the next request: one the pool has not heard
      // of yet would still be handed out, and that request would get a 503.
      const warnings = await poll(
        async () => lines.filter((l) => l.includes('idle database connection failed')),
        (found) => found.length >= pooled,
        10_000,
      );
      expect(warnings).toHaveLength(pooled);
      for (const line of warnings) {
        const entry = JSON.parse(line) as Record<string, unknown>;
        expect(entry).toMatchObject({ level: 40, code: '57P01', message: expect.stringMatching(/terminating connection/) });
        expect(Object.keys(entry).sort()).toEqual(['code', 'level', 'message', 'msg', 'pid', 'hostname', 'time'].sort());
        expect(line).not.toMatch(/secretKey|processID|password/);
        expect(line.length).toBeLessThan(400);
      }
      expect((await request(server.url, '/api/health')).status).toBe(200);
    } finally {
      await server.close();
      await database.drop();
    }
  });
});

