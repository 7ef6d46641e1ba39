/**
 * A server process whose database becomes unreachable answers 503 (and /api/health says
 * "unavailable"), stays up, and serves normally again once the database is back. The database is
 * cut off by a TCP proxy in this process, so the real Postgres server keeps running.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, sessionFrom } from '../support/client.ts';
import { testStore } from '@sl-accounts/store-contract';
import { locatePostgres } from '@sl-accounts/store-postgres/testing';
import type { ServerProcess } from '../support/server-process.ts';
import { poll } from '../support/poll.ts';
import { startProxiedServer } from '../support/proxied-server.ts';
import type { TcpProxy } from '../support/tcp-proxy.ts';

// Several processes on one database: PGlite (one process per directory) cannot stand in.
const postgres = await testStore('postgres', locatePostgres);

describe.skipIf(postgres.skip !== undefined)(`recovery from a lost database (${postgres.title})`, () => {
  let proxy: TcpProxy;
  let app: ServerProcess;
  let close: (() => Promise<void>) | undefined;
  // Every /api/me must ask the database here; the session cache's own behaviour through a cut
  // (known sessions answered from memory for at most SESSION_CACHE_STALENESS_MS, never a revoked one)
  // is tested in session-cache.test.ts.
  beforeAll(async () => void ({ proxy, app, close } = await startProxiedServer({ TRUST_PROXY: '1', SESSION_CACHE_SIZE: '0' })));
  afterAll(() => close?.());

  it('answers 503 while the database is away, stays up, and recovers within 5 s of its return', async () => {
    const signup = await request(app.url, '/api/signup', { ip: '198.51.100.20', json: { name: 'Ada', email: 'ada@example.com', password: 'come back soon' } });
    expect(signup.status).toBe(201);
    const token = sessionFrom(signup);
    expect((await request(app.url, '/api/me', { session: token })).status).toBe(200);

    // Cut while queries are provably in flight: the proxy holds what the pool sends, so the burst's
    // lookups are on checked-out connections (and the rest queued behind them) when they drop.
    proxy.hold();
    const burst = Array.from({ length: 40 }, () => request(app.url, '/api/me', { session: token }));
    await poll(async () => proxy.heldBytes(), (held) => held > 0, 5_000);
    expect(proxy.heldBytes()).toBeGreaterThan(0);
    await proxy.cut();
    proxy.release();
    const statuses = (await Promise.all(burst)).map((res) => res.status);
    expect(statuses).toEqual(statuses.map(() => 503));

    const me = await request(app.url, '/api/me', { session: token });
    expect(me.status).toBe(503);
    expect(me.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
    const health = await request(app.url, '/api/health');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ ok: false, status: 'unavailable' });
    const login = await request(app.url, '/api/login', { ip: '198.51.100.21', json: { email: 'ada@example.com', password: 'come back soon' } });
    expect(login.status).toBe(503);
    expect(login.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
    const contact = await request(app.url, '/api/contact', { ip: '198.51.100.22', json: { name: 'Ada', email: 'ada@example.com', message: 'is anyone there?' } });
    expect(contact.status).toBe(503);
    expect(app.alive()).toBe(true);

    await proxy.restore();

    const back = await poll(() => request(app.url, '/api/me', { session: token }), (res) => res.status === 200, 5_000);
    expect(back.status, app.output()).toBe(200);
    expect(back.body).toEqual(signup.body);
    expect((await request(app.url, '/api/health')).status).toBe(200);
    expect(app.alive()).toBe(true);
  });
});
