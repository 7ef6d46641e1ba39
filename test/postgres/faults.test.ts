/**
 * A server process whose database goes silent (connections stay open, bytes are dropped) or stalls
 * (bytes are held and delivered later): every request answers 503 within the statement bound,
 * normal answers resume by themselves once the network heals, accounts acknowledged before the
 * fault survive, and SIGTERM during the fault exits within 10 s. The faults come from a TCP proxy in
 * this process; the real Postgres server keeps running.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStore } from '@sl-accounts/store-contract';
import { locatePostgres } from '@sl-accounts/store-postgres/testing';
import { request, sessionFrom, type ApiResponse } from '../support/client.ts';
import type { ServerProcess } from '../support/server-process.ts';
import { poll } from '../support/poll.ts';
import { startProxiedServer } from '../support/proxied-server.ts';
import type { TcpProxy } from '../support/tcp-proxy.ts';

// A database the process reaches through a proxy: PGlite cannot stand in.
const postgres = await testStore('postgres', locatePostgres);

/** A request with the time it took to answer. */
async function timed(ask: Promise<ApiResponse>): Promise<{ readonly res: ApiResponse; readonly ms: number }> {
  const start = performance.now();
  const res = await ask;
  return { res, ms: performance.now() - start };
}

describe.skipIf(postgres.skip !== undefined)(`silent and stalled databases (${postgres.title})`, () => {
  const BOUND_MS = 1_000;
  let proxy: TcpProxy;
  let app: ServerProcess;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => void ({ proxy, app, close } = await startProxiedServer({ TRUST_PROXY: '1', DB_TIMEOUT_MS: String(BOUND_MS) })));
  afterAll(() => close?.());

  for (const fault of ['silence', 'stall'] as const) {
    it(`${fault}: 503 within the bound while it lasts, normal answers within seconds of healing, no acknowledged account lost`, async () => {
      const account = { name: 'Ada', email: `ada-${fault}@example.com`, password: 'come back soon' };
      const signup = await request(app.url, '/api/signup', { ip: '198.51.100.30', json: account });
      expect(signup.status).toBe(201);
      const token = sessionFrom(signup);

      proxy[fault]();
      // More requests than the pool has connections, of every kind that needs the database.
      const burst = Array.from({ length: 30 }, (_, i) => {
        const ip = `198.51.100.${40 + i}`;
        switch (i % 5) {
          case 0:
            return timed(request(app.url, '/api/me', { session: token }));
          case 1:
            return timed(request(app.url, '/api/health'));
          case 2:
            return timed(request(app.url, '/api/login', { ip, json: { email: account.email, password: account.password } }));
          case 3:
            return timed(request(app.url, '/api/contact', { ip, json: { name: 'Ada', email: account.email, message: 'is anyone there?' } }));
          default:
            return timed(request(app.url, '/api/signup', { ip, json: { ...account, email: `new-${i}-${fault}@example.com` } }));
        }
      });
      const answers = await Promise.all(burst);
      // The fault was real: the requests' statements went out and were dropped or held.
      expect(fault === 'silence' ? proxy.droppedBytes() : proxy.heldBytes()).toBeGreaterThan(0);
      for (const { res, ms } of answers) {
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ ok: false });
        // The bound is 1 s per statement; generous, for a busy machine.
        expect(ms).toBeLessThan(BOUND_MS + 5_000);
      }
      expect(app.alive()).toBe(true);

      proxy.release();
      const back = await poll(() => request(app.url, '/api/me', { session: token }), (res) => res.status === 200, 15_000);
      expect(back.status, app.output()).toBe(200);
      expect(back.body).toEqual(signup.body);
      // Not one connection is left wedged: a burst wider than the pool is served in full.
      const after = await Promise.all(Array.from({ length: 30 }, () => request(app.url, '/api/me', { session: token })));
      expect(after.map((res) => res.status)).toEqual(after.map(() => 200));
      const login = await request(app.url, '/api/login', { ip: '198.51.100.31', json: { email: account.email, password: account.password } });
      expect(login.status).toBe(200);
    });
  }
});

describe.skipIf(postgres.skip !== undefined)(`SIGTERM while the database is silent (${postgres.title})`, () => {
  let close: (() => Promise<void>) | undefined;
  afterAll(() => close?.());

  it('exits within 10 s with the default bound, answering the requests in flight with 503', async () => {
    // The default bound (DB_TIMEOUT_MS unset): what a deploy meets.
    const { proxy, app, close: stop } = await startProxiedServer();
    close = stop;
    const signup = await request(app.url, '/api/signup', { json: { name: 'Ada', email: 'ada@example.com', password: 'see you later' } });
    const token = sessionFrom(signup);

    proxy.silence();
    const inFlight = Array.from({ length: 20 }, () => request(app.url, '/api/me', { session: token }));
    await poll(async () => proxy.droppedBytes(), (dropped) => dropped > 0, 5_000);
    expect(proxy.droppedBytes()).toBeGreaterThan(0);

    const start = performance.now();
    const exited = once(app.child, 'exit');
    app.child.kill('SIGTERM');
    const kill = setTimeout(() => app.child.kill('SIGKILL'), 20_000);
    const [code, signal] = (await exited) as [number | null, string | null];
    clearTimeout(kill);
    const ms = performance.now() - start;
    expect(ms, app.output()).toBeLessThan(10_000);
    expect([code, signal]).toEqual([0, null]);
    const statuses = (await Promise.all(inFlight)).map((res) => res.status);
    expect(statuses).toEqual(statuses.map(() => 503));
  });
});
