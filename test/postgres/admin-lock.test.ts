/**
 * Issue 43's "done when", on two real server processes sharing one Postgres database: an operator
 * finds an account through A's admin API, locks it, and the session open on B is refused at once
 * (the lock's deleted sessions reach B's session cache through the revocation feed); the right
 * password is then 403 `account_locked`, the event carries the operator's name, and after the unlock
 * the owner's activity shows the sign-ins and the lock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStore } from '@sl-accounts/store-contract';
import { createTestDatabase, locatePostgres, type ServerDatabase } from '@sl-accounts/store-postgres/testing';
import { request, sessionFrom } from '../support/client.ts';
import { spawnServer, type ServerProcess } from '../support/server-process.ts';

const postgres = await testStore('postgres', locatePostgres);
const TOKEN = 'k'.repeat(40);

describe.skipIf(postgres.skip)(`the operator's lock across two processes, on ${postgres.title}`, () => {
  let database: ServerDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { STORE: 'postgres', DATABASE_URL: database.url, TRUST_PROXY: '1', SESSION_CACHE_SIZE: '50000', SESSION_CACHE_STALENESS_MS: '100' };
    a = await spawnServer({ ...env, ADMIN_PORT: '0', ADMIN_TOKENS: `alice:${TOKEN}` });
    b = await spawnServer(env);
    const listening = a
      .output()
      .split('\n')
      .map((line) => (line.startsWith('{') ? (JSON.parse(line) as { msg?: string; admin?: string }) : {}))
      .find((entry) => entry.msg === 'listening');
    admin = listening!.admin!;
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  const call = (method: string, path: string, body?: unknown) =>
    fetch(admin + path, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  it('finds, locks (B refuses the open session at once), records the operator, unlocks', async () => {
    const credentials = { email: 'ada@example.com', password: 'correct horse' };
    expect((await request(a.url, '/api/signup', { ip: '198.51.100.1', json: { name: 'Ada', ...credentials } })).status).toBe(201);
    const onB = sessionFrom(await request(b.url, '/api/login', { ip: '198.51.100.1', json: credentials }))!;
    expect((await request(b.url, '/api/me', { session: onB })).status).toBe(200);

    const found = (await (await call('GET', '/accounts?email=ada')).json()) as { accounts: { id: number }[] };
    const id = found.accounts[0]!.id;
    expect((await call('POST', `/accounts/${id}/lock`, { reason: 'reported stolen' })).status).toBe(200);
    // At once: the lock deleted the session, and B's cache heard it before it answers from memory.
    expect((await request(b.url, '/api/me', { session: onB })).status).toBe(401);
    const refused = await request(b.url, '/api/login', { ip: '198.51.100.1', json: credentials });
    expect([refused.status, (refused.body as { code: string }).code]).toEqual([403, 'account_locked']);
    const events = (await (await call('GET', '/activity?type=account-locked')).json()) as { events: { actor: string }[] };
    expect(events.events.map((e) => e.actor)).toEqual(['alice']);

    expect((await call('POST', `/accounts/${id}/unlock`)).status).toBe(200);
    const back = sessionFrom(await request(b.url, '/api/login', { ip: '198.51.100.1', json: credentials }))!;
    const mine = await request(a.url, '/api/me/activity', { session: back });
    const types = (mine.body as { events: { type: string }[] }).events.map((e) => e.type);
    expect(types).toEqual(['signed-in', 'account-unlocked', 'account-locked', 'signed-in', 'signed-in', 'account-created']);
  });
});
