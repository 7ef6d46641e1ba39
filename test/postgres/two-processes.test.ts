/**
 * Two real server processes on one database behave as one service: a session made on one is valid
 * on the other, and rate limits count across both. PGlite cannot be shared between processes, so
 * this needs a Postgres server (DATABASE_URL, a local one, or a container).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, sessionFrom } from '../support/client.ts';
import { testStore } from '@sl-accounts/store-contract';
import { createTestDatabase, locatePostgres, type ServerDatabase } from '@sl-accounts/store-postgres/testing';
import { spawnServer, type ServerProcess } from '../support/server-process.ts';

// Several processes on one database: PGlite (one process per directory) cannot stand in.
const postgres = await testStore('postgres', locatePostgres);

describe.skipIf(postgres.skip !== undefined)(`two server processes on one Postgres database (${postgres.title})`, () => {
  let database: ServerDatabase | undefined;
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;

  beforeAll(async () => {
    const created = await createTestDatabase();
    database = created;
    const env = { STORE: 'postgres', DATABASE_URL: created.url, TRUST_PROXY: '1' };
    // Started together, so both migrate the empty database at once.
    [a, b] = await Promise.all([spawnServer(env), spawnServer(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  it('a session made on one process is valid on the other, and a logout on one ends it on both', async () => {
    const signup = await request(a!.url, '/api/signup', { ip: '198.51.100.10', json: { name: 'Ada', email: 'ada@example.com', password: 'two processes' } });
    expect(signup.status).toBe(201);
    const token = sessionFrom(signup);

    const me = await request(b!.url, '/api/me', { session: token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(signup.body);

    expect((await request(b!.url, '/api/signup', { ip: '198.51.100.11', json: { name: 'Ada', email: 'ADA@example.com', password: 'two processes' } })).status).toBe(409);
    expect((await request(b!.url, '/api/login', { ip: '198.51.100.11', json: { email: 'ada@example.com', password: 'two processes' } })).status).toBe(200);

    expect((await request(b!.url, '/api/logout', { method: 'POST', session: token })).status).toBe(200);
    expect((await request(a!.url, '/api/me', { session: token })).status).toBe(401);
  });

  it('the contact limit of one IP is shared: 3 requests to A and 3 to B, the 6th is 429', async () => {
    const contact = (url: string) =>
      request(url, '/api/contact', { ip: '203.0.113.77', json: { name: 'Lim', email: 'lim@example.com', message: 'shared limit, please' } });
    const statuses = [];
    for (const url of [a!.url, a!.url, a!.url, b!.url, b!.url]) statuses.push((await contact(url)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const sixth = await contact(b!.url);
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('both processes are still running', () => {
    expect(a!.alive()).toBe(true);
    expect(b!.alive()).toBe(true);
  });
});
