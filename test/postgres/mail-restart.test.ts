/**
 * The outbox across processes, as a user runs the service (`pnpm start`-like child processes on one
 * Postgres database) with a real SMTP server in this process: contact messages accepted while SMTP
 * is down survive a restart of the service and arrive exactly once when SMTP is back; two processes
 * sending from one outbox never send one mail twice.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { testStore } from '@sl-accounts/store-contract';
import { createTestDatabase, locatePostgres, withSql, type ServerDatabase } from '@sl-accounts/store-postgres/testing';
import { request } from '../support/client.ts';
import { poll } from '../support/poll.ts';
import { spawnServer, type ServerProcess } from '../support/server-process.ts';
import { messageIds, startTestSmtp, type TestSmtp } from '../support/smtp.ts';

// Several processes on one database: PGlite (one process per directory) cannot stand in.
const postgres = await testStore('postgres', locatePostgres);

const contact = (n: number) => ({ name: `Visitor ${n}`, email: `visitor${n}@example.com`, message: `Question number ${n}, about the course.` });
const subject = (n: number) => `[sl-accounts] Contact message from Visitor ${n}`;

describe.skipIf(postgres.skip !== undefined)(`mail across restarts and processes (${postgres.title})`, () => {
  let database: ServerDatabase | undefined;
  let smtp: TestSmtp | undefined;
  const processes: ServerProcess[] = [];

  afterEach(async () => {
    await Promise.all(processes.splice(0).map((p) => p.stop()));
    await smtp?.close();
    await database?.drop();
    database = smtp = undefined;
  });

  const env = () => ({
    STORE: 'postgres',
    DATABASE_URL: database!.url,
    SMTP_URL: smtp!.url,
    MAIL_FROM: 'accounts@example.org',
    CONTACT_TO: 'operator@example.net',
    // Each request from its own client (X-Forwarded-For), so the contact limit (5 an hour) does not interfere.
    TRUST_PROXY: '1',
    MAIL_POLL_MS: '20',
    MAIL_RETRY_BASE_MS: '50',
    MAIL_RETRY_MAX_MS: '200',
    SMTP_TIMEOUT_MS: '2000',
  });
  const spawn = async () => {
    const started = await spawnServer(env());
    processes.push(started);
    return started;
  };
  const outboxRows = async () => withSql(database!.url, async (sql) => Number((await sql.query<{ n: string }>('select count(*) as n from mail_outbox')).rows[0]!.n));
  const post = async (url: string, n: number) => {
    const res = await request(url, '/api/contact', { ip: `198.51.100.${n}`, json: contact(n) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  };

  it('contact messages accepted while SMTP is down arrive exactly once after a restart of the service and SMTP', async () => {
    database = await createTestDatabase();
    smtp = await startTestSmtp({ up: false });
    const first = await spawn();
    for (let n = 1; n <= 4; n++) await post(first.url, n);
    // The service tried and failed (it says so in its log), and keeps every mail.
    await poll(async () => first.output(), (out) => (out.match(/mail not sent/g) ?? []).length >= 2, 10_000);
    expect(first.output()).toMatch(/ECONNREFUSED/);
    await first.stop();
    expect(await outboxRows()).toBe(4);

    await smtp.up();
    const second = await spawn();
    await poll(outboxRows, (n) => n === 0, 20_000);
    expect(await outboxRows()).toBe(0);
    // The outbox is empty: nothing more can be sent, so what arrived is final.
    expect(smtp.received.map((m) => m.parsed.subject).sort()).toEqual([1, 2, 3, 4].map(subject));
    expect(new Set(messageIds(smtp.received)).size).toBe(4);
    expect(second.alive()).toBe(true);
  });

  it('two processes sending from one outbox never send one mail twice', async () => {
    database = await createTestDatabase();
    smtp = await startTestSmtp({ up: false });
    const [a, b] = await Promise.all([spawn(), spawn()]);
    // Both see every mail due at once when SMTP comes back: the race the claims must settle.
    const count = 24;
    await Promise.all(Array.from({ length: count }, (_, i) => post(i % 2 === 0 ? a.url : b.url, i + 1)));
    await poll(async () => a.output() + b.output(), (out) => (out.match(/mail not sent/g) ?? []).length >= 4, 10_000);
    await smtp.up();
    await poll(outboxRows, (n) => n === 0, 20_000);
    expect(await outboxRows()).toBe(0);
    expect(smtp.received).toHaveLength(count);
    expect(smtp.received.map((m) => m.parsed.subject).sort()).toEqual(Array.from({ length: count }, (_, i) => subject(i + 1)).sort());
    expect(new Set(messageIds(smtp.received)).size).toBe(count);
    // Both took part.
    const sentBy = (p: ServerProcess) => (p.output().match(/"msg":"mail sent"/g) ?? []).length;
    expect(sentBy(a) + sentBy(b)).toBe(count);
  });

  it('a stop waits for the mail being sent and records it as sent, so no later process sends it again', async () => {
    database = await createTestDatabase();
    smtp = await startTestSmtp();
    smtp.hold();
    const first = await spawn();
    await post(first.url, 1);
    await poll(async () => smtp!.heldCount, (n) => n === 1, 10_000);
    const stopping = first.stop();
    await poll(async () => first.output(), (out) => out.includes('SIGTERM received'), 10_000);
    smtp.release();
    await stopping;
    expect(first.child.exitCode).toBe(0);
    expect(await outboxRows()).toBe(0);
    expect(smtp.received).toHaveLength(1);
  });
});
