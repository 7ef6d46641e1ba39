/**
 * Issue 20 on a Postgres server: two instances on one database, each with its session cache, sending
 * mail through a real SMTP server in the test process. A session that any of the operations ends on one
 * instance is refused by the other within the cache's bound, through the revocation feed (the
 * other instance had it cached, and its entries live a minute otherwise).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { testStore } from '@sl-accounts/store-contract';
import { createTestDatabase, locatePostgres, withSql, type ServerDatabase } from '@sl-accounts/store-postgres/testing';
import { request, sessionFrom } from '../support/client.ts';
import { sample, scrape } from '../support/metrics.ts';
import { poll } from '../support/poll.ts';
import { startTestServer } from '../support/server.ts';
import { startTestSmtp, type TestSmtp } from '../support/smtp.ts';

const postgres = await testStore('postgres', locatePostgres);
const PUBLIC_URL = 'https://accounts.example.org';
const NEW_PASSWORD = 'a new and longer passphrase';

describe.skipIf(postgres.skip !== undefined)(`the account’s life across two instances on ${postgres.title}`, () => {
  let database: ServerDatabase;
  let smtp: TestSmtp;
  let a: RunningServer;
  let b: RunningServer;
  let ip = 0;
  let user = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    smtp = await startTestSmtp();
    const env = { STORE: 'postgres', DATABASE_URL: database.url, TRUST_PROXY: '1', PUBLIC_URL, SMTP_URL: smtp.url, MAIL_FROM: 'accounts@example.org', MAIL_POLL_MS: '50', METRICS_PORT: '0' };
    a = await startTestServer({ env });
    b = await startTestServer({ env });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([database?.drop(), smtp?.close()]);
  });

  const call = (server: RunningServer, path: string, options: Parameters<typeof request>[2] = {}) =>
    request(server.url, path, { ip: `198.18.${++ip >> 8}.${ip & 255}`, ...options });
  /** Lookups B's session cache answered from memory so far. */
  const hitsOnB = async () => sample(await scrape(b.metricsUrl!), 'sl_accounts_session_cache_lookups_total', { result: 'hit' });
  /** Asks B for `session` until B answers it from its cache (its feed is caught up and it holds the session). */
  async function cachedOnB(session: string): Promise<void> {
    const answeredFromMemory = await poll(
      async () => {
        const before = await hitsOnB();
        expect((await call(b, '/api/me', { session })).status).toBe(200);
        return (await hitsOnB()) > before;
      },
      (hit) => hit,
      10_000,
    );
    expect(answeredFromMemory).toBe(true);
  }
  /** A fresh account signed in twice on A: `first` and `second`, and `second` cached on B. */
  async function twoSessions() {
    const who = { name: 'Ada', email: `ada${++user}@example.com`, password: 'correct horse battery' };
    const first = sessionFrom(await call(a, '/api/signup', { json: who }))!;
    const second = sessionFrom(await call(a, '/api/login', { json: { email: who.email, password: who.password } }))!;
    await cachedOnB(second);
    return { who, first, second };
  }
  /** B's answers to `session` until it refuses it; fails unless that happens within 5 s (caches keep entries 60 s). */
  async function refusedOnB(session: string): Promise<void> {
    const res = await poll(() => call(b, '/api/me', { session }), (r) => r.status === 401, 5_000);
    expect(res.status).toBe(401);
  }
  /** The mails to `recipient` but its security notices (the second login of `twoSessions` is a new device's, and is told) and the signup's verification link. */
  const received = (recipient: string) => smtp.received.filter((m) => m.rcptTo.includes(recipient) && !m.parsed.subject?.startsWith('[sl-accounts] ') && !m.parsed.subject?.startsWith('Confirm your address'));
  const queued = (recipient: string) =>
    withSql(database.url, async (sql) => (await sql.query('select id from mail_outbox where recipient = $1', [recipient])).rows);

  it('a session ended by id on one instance is refused by the other', async () => {
    const { first, second } = await twoSessions();
    const listed = (await call(a, '/api/sessions', { session: first })).body as { sessions: { id: string; current: boolean }[] };
    const other = listed.sessions.find((s) => !s.current)!;
    expect((await call(a, `/api/sessions/${other.id}`, { method: 'DELETE', session: first })).status).toBe(200);
    await refusedOnB(second);
  });

  it('a password change on one instance ends the other sessions there too', async () => {
    const { who, first, second } = await twoSessions();
    expect((await call(a, '/api/password', { json: { currentPassword: who.password, newPassword: NEW_PASSWORD }, session: first })).status).toBe(200);
    await refusedOnB(second);
    expect((await call(b, '/api/me', { session: first })).status).toBe(200);
  });

  it('a deletion on one instance is refused by the other, and the address signs up again there', async () => {
    const { who, first, second } = await twoSessions();
    expect((await call(a, '/api/me', { method: 'DELETE', json: { password: who.password }, session: first })).status).toBe(200);
    await refusedOnB(second);
    expect((await call(b, '/api/signup', { json: who })).status).toBe(201);
  });

  it('a reset mails only the registered address, with a PUBLIC_URL link whose token works once and ends every session everywhere', async () => {
    const { who, first, second } = await twoSessions();
    const unknown = `nobody${user}@example.com`;
    expect((await call(a, '/api/password-reset', { json: { email: unknown } })).status).toBe(202);
    expect((await call(a, '/api/password-reset', { json: { email: who.email } })).status).toBe(202);
    await a.accounts.settled();
    await poll(async () => received(who.email).length, (n) => n === 1, 10_000);
    const mails = received(who.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.parsed.subject).toBe('Reset your sl-accounts password');
    // The unknown address's request was answered and settled first: nothing was queued or sent for it.
    expect(await queued(unknown)).toEqual([]);
    expect(received(unknown)).toEqual([]);
    const link = new URL(/https?:\/\/\S+/.exec(mails[0]!.parsed.text ?? '')![0]);
    expect(`${link.origin}${link.pathname}`).toBe(`${PUBLIC_URL}/reset-password`);
    const token = link.searchParams.get('token')!;
    // Stored only as its digest.
    const stored = await withSql(database.url, async (sql) => (await sql.query("select * from one_time_tokens where purpose = 'password-reset'")).rows);
    expect(JSON.stringify(stored)).not.toContain(token);
    await cachedOnB(first);
    expect((await call(a, '/api/password-reset/confirm', { json: { token, newPassword: NEW_PASSWORD } })).status).toBe(200);
    await refusedOnB(second);
    await refusedOnB(first);
    expect((await call(a, '/api/me', { session: first })).status).toBe(401);
    expect((await call(a, '/api/login', { json: { email: who.email, password: NEW_PASSWORD } })).status).toBe(200);
    expect((await call(a, '/api/password-reset/confirm', { json: { token, newPassword: 'yet another passphrase' } })).status).toBe(400);
  });

  it('a reset completed on one instance clears the account’s failed logins for the other, and its device cookie passes the other’s next lockout', async () => {
    const who = { name: 'Ada', email: `ada${++user}@example.com`, password: 'correct horse battery' };
    expect((await call(a, '/api/signup', { json: who })).status).toBe(201);
    const lockOnB = async () => {
      for (let i = 0; i < 21; i++) await call(b, '/api/login', { json: { email: who.email, password: `stranger guess ${i}` } });
    };
    await lockOnB();
    expect((await call(b, '/api/login', { json: { email: who.email, password: who.password } })).status).toBe(429);
    expect((await call(a, '/api/password-reset', { json: { email: who.email } })).status).toBe(202);
    await a.accounts.settled();
    await poll(async () => received(who.email).length, (n) => n === 1, 10_000);
    const token = new URL(/https?:\/\/\S+/.exec(received(who.email)[0]!.parsed.text ?? '')![0]).searchParams.get('token')!;
    const done = await call(a, '/api/password-reset/confirm', { json: { token, newPassword: NEW_PASSWORD } });
    expect(done.status).toBe(200);
    const device = /^sl_device=([^;]+)/.exec(done.setCookies[0] ?? '')?.[1];
    expect(device).toBeDefined();
    // One limiter table for both instances: the failures are gone for B as well.
    expect((await call(b, '/api/login', { json: { email: who.email, password: NEW_PASSWORD } })).status).toBe(200);
    await lockOnB();
    expect((await call(b, '/api/login', { json: { email: who.email, password: NEW_PASSWORD } })).status).toBe(429);
    expect((await call(b, '/api/login', { json: { email: who.email, password: NEW_PASSWORD }, headers: { cookie: `sl_device=${device}` } })).status).toBe(200);
  });
});
