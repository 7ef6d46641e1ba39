/**
 * The stores' revocation feeds. On a Postgres server the database's own triggers announce every
 * session that goes, whoever removed it, and each store's feed hears it on a connection of its
 * own; on PGlite the store publishes its own deletes. A session cache trusts a feed only while
 * its `lagMs()` is within the cache's bound, so that is tested as closely as what the feed delivers.
 * How small the lag stays is a figure of `pnpm bench` (its revocation part); these tests bound it
 * generously.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestToken, type RevocationListener, type SessionRevocations } from '@sl-accounts/service/core';
import { testStore } from '@sl-accounts/store-contract';
import { createPostgresStore, type PostgresStore } from '@sl-accounts/store-postgres';
import {
  createPGliteDatabase,
  createTestDatabase,
  locatePostgres,
  openMigratedTestStore,
  openTestStore,
  withSql,
  type PostgresTestStore,
  type ServerDatabase,
} from '@sl-accounts/store-postgres/testing';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const PHC = '$pbkdf2-sha256$i=1000$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
const T0 = new Date('2031-03-01T12:00:00Z');
/** The bound a session cache puts on a feed by default. */
const STALENESS_MS = 100;
/** The name the feed's connection goes by in pg_stat_activity. */
const FEED_APPLICATION = 'sl-accounts revocations';

const postgres = await testStore('postgres', locatePostgres);
const pglite = await testStore('pglite');

/** A listener that keeps what it heard. */
class Heard implements RevocationListener {
  readonly events: (readonly string[] | 'all')[] = [];

  revoked(digests: readonly string[] | 'all'): void {
    this.events.push(digests);
  }

  digests(): string[] {
    return this.events.flatMap((e) => (e === 'all' ? [] : e));
  }

  clear(): void {
    this.events.length = 0;
  }
}

/** Waits until `check` holds, looking every few milliseconds; fails the test after `ms`. */
async function until(check: () => boolean, ms = 2_000, what = 'condition'): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Subscribes, waits until the feed is confirmed, and forgets the 'all' a fresh connection starts with. */
async function listen(feed: SessionRevocations): Promise<Heard> {
  const heard = new Heard();
  feed.subscribe(heard);
  await until(() => feed.lagMs() < Number.POSITIVE_INFINITY, 5_000, 'caught up');
  expect(heard.events).toEqual(['all']);
  heard.clear();
  return heard;
}

/**
 * Waits until the feed has caught up past now: whatever was committed before has been delivered
 * (the feed lags by less than the time since now).
 */
async function caughtUpPastNow(feed: SessionRevocations): Promise<void> {
  const now = performance.now();
  await until(() => feed.lagMs() <= performance.now() - now, 5_000, 'caught up past now');
}

let tokens = 0;
/** Creates `count` sessions of a new user through `store`; returns their digests. */
async function sessions(store: PostgresStore, count = 1, expiresAt = T0): Promise<string[]> {
  const user = await store.users.insert({ name: 'Ada', email: `ada${tokens++}@example.com`, passwordHash: PHC, createdAt: T0 });
  const digests = Array.from({ length: count }, () => digestToken(`token ${tokens++}`));
  for (const tokenDigest of digests) await store.sessions.insert({ tokenDigest, userId: user!.id, credentialGeneration: 0, createdAt: T0, expiresAt });
  return digests;
}

/** Backends of this database that a feed opened. */
async function feedConnections(database: ServerDatabase): Promise<number> {
  const name = new URL(database.url).pathname.slice(1);
  return withSql(database.url, async (sql) => {
    const { rows } = await sql.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1 and application_name = $2', [name, FEED_APPLICATION]);
    return rows[0]!.n;
  });
}

/** feedConnections once it is `expected`, or after 5 s (a backend leaves pg_stat_activity shortly after its client). */
async function feedConnectionsSettle(database: ServerDatabase, expected: number): Promise<number> {
  const deadline = performance.now() + 5_000;
  for (;;) {
    const count = await feedConnections(database);
    if (count === expected || performance.now() > deadline) return count;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(postgres.skip)(`the revocation feed on ${postgres.title}`, () => {
  let database: ServerDatabase;
  /** The store that writes. */
  let a: PostgresTestStore;
  /** Another store (another process, as far as the database can tell) whose feed listens. */
  let b: PostgresTestStore;
  beforeEach(async () => {
    database = await createTestDatabase();
    a = openTestStore(database);
    await a.migrate();
    b = openTestStore(database);
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
    await database.drop();
  });

  it('hears a logout through another store, before it is caught up past the logout', async () => {
    const heard = await listen(b.revocations);
    const [digest] = await sessions(a, 2);
    expect(await a.sessions.delete(digest!)).not.toBeNull();
    await caughtUpPastNow(b.revocations);
    expect(heard.events).toEqual([[digest]]);
  });

  it('hears a DELETE typed by hand, with its digest, and a deleted user’s sessions by the cascade', async () => {
    const heard = await listen(b.revocations);
    const [mine] = await sessions(a);
    const theirs = await sessions(a, 3);
    await withSql(database.url, (sql) => sql.query('delete from sessions where token_digest = $1', [mine]));
    await withSql(database.url, (sql) => sql.query('delete from users where id = (select user_id from sessions where token_digest = $1)', [theirs[0]]));
    await caughtUpPastNow(b.revocations);
    expect(heard.events).toHaveLength(2);
    expect(heard.events[0]).toEqual([mine]);
    expect([...heard.events[1]!].sort()).toEqual([...theirs].sort());
  });

  it('hears the sweep, with the digests of the expired sessions only', async () => {
    const heard = await listen(b.revocations);
    const expired = await sessions(a, 3, T0);
    await sessions(a, 2, new Date(T0.getTime() + 60_000));
    expect((await a.deleteExpired(T0)).sessions).toBe(3);
    await caughtUpPastNow(b.revocations);
    expect(heard.digests().sort()).toEqual([...expired].sort());
  });

  it('hears a NOTIFY typed by hand: digests, or every session when it names none', async () => {
    const heard = await listen(b.revocations);
    const digest = digestToken('by hand');
    await withSql(database.url, async (sql) => {
      await sql.query("select pg_notify('sl_session_revocations', $1)", [digest]);
      await sql.query('notify sl_session_revocations');
    });
    await caughtUpPastNow(b.revocations);
    expect(heard.events).toEqual([[digest], 'all']);
  });

  it('hears a changed session row by its old digest', async () => {
    const heard = await listen(b.revocations);
    const [digest] = await sessions(a);
    await withSql(database.url, (sql) => sql.query("update sessions set expires_at = expires_at + interval '1 day' where token_digest = $1", [digest]));
    await caughtUpPastNow(b.revocations);
    expect(heard.events).toEqual([[digest]]);
  });

  it('hears TRUNCATE as every session; a change to a user’s name, e-mail or verification as that user’s sessions only; a new password hash as none', async () => {
    const heard = await listen(b.revocations);
    await sessions(a, 2);
    // CASCADE, as an operator would type it (nothing references sessions since migration 0014).
    await withSql(database.url, (sql) => sql.query('truncate sessions cascade'));
    await caughtUpPastNow(b.revocations);
    expect(heard.events).toEqual(['all']);

    // Ada's two sessions and another user's one: a change of Ada is heard as hers, not as every session.
    const ada = await sessions(a, 2);
    await sessions(a, 1);
    const adaId = await withSql(database.url, async (sql) => (await sql.query<{ user_id: number }>('select user_id from sessions where token_digest = $1', [ada[0]])).rows[0]!.user_id);
    for (const statement of [`update users set name = 'Augusta' where id = ${adaId}`, `update users set email = 'augusta@example.com' where id = ${adaId}`, `update users set email_verified = true where id = ${adaId}`]) {
      heard.clear();
      await withSql(database.url, (sql) => sql.query(statement));
      await caughtUpPastNow(b.revocations);
      expect(heard.events.map((e) => (e === 'all' ? e : [...e].sort())), statement).toEqual([[...ada].sort()]);
    }

    heard.clear();
    await withSql(database.url, (sql) => sql.query("update users set password_hash = '$pbkdf2-sha256$i=2000$c2FsdA$aGFzaA'"));
    await a.users.update(1, { passwordHash: PHC }, { credentialGeneration: 0 });
    // Nor does a move of the credential generation by itself: the sessions it ends are deleted in
    // its transaction, and heard one by one.
    await withSql(database.url, (sql) => sql.query('update users set credential_generation = credential_generation + 1'));
    await caughtUpPastNow(b.revocations);
    expect(heard.events).toEqual([]);
  });

  it('hears 12,000 deleted sessions as their digests, 100 to a notification, and 12,001 as every session', async () => {
    const heard = await listen(b.revocations);
    const ids: number[] = [];
    for (const email of ['many@example.com', 'more@example.com']) ids.push((await a.users.insert({ name: 'Many', email, passwordHash: PHC, createdAt: T0 }))!.id);
    await withSql(database.url, async (sql) => {
      const insert = "insert into sessions select encode(sha256(($1 || i)::bytea), 'hex'), $2, now(), now() from generate_series(1, $3::int) as i";
      await sql.query(insert, ['first ', ids[0], 12_000]);
      await sql.query(insert, ['second ', ids[1], 12_001]);
      const { rows } = await sql.query<{ token_digest: string }>('select token_digest from sessions where user_id = $1', [ids[0]]);
      await sql.query('delete from sessions where user_id = $1', [ids[0]]);
      await caughtUpPastNow(b.revocations);
      expect(heard.events).toHaveLength(120);
      expect(heard.events.every((e) => e !== 'all' && e.length === 100)).toBe(true);
      expect(heard.digests().sort()).toEqual(rows.map((r) => r.token_digest).sort());

      heard.clear();
      await sql.query('delete from sessions where user_id = $1', [ids[1]]);
    });
    await caughtUpPastNow(b.revocations);
    expect(heard.events).toEqual(['all']);
  });

  it('hears nothing of a delete that was rolled back', async () => {
    const heard = await listen(b.revocations);
    const [kept, gone] = await sessions(a, 2);
    await withSql(database.url, async (sql) => {
      await sql.query('begin');
      await sql.query('delete from sessions where token_digest = $1', [kept]);
      await sql.query('rollback');
    });
    await a.sessions.delete(gone!);
    await caughtUpPastNow(b.revocations);
    expect(heard.events).toEqual([[gone]]);
  });

  it('stays caught up while connected, and its heartbeats leave the pool alone', async () => {
    await listen(b.revocations);
    // Within the bound a cache puts on it (how far within, and how often not, is `pnpm bench`'s
    // revocation figure: heartbeats every 25 ms keep the median lag near half that) ...
    await until(() => b.revocations.lagMs() <= STALENESS_MS, 5_000, 'within the bound');
    // ... and, looked at every few milliseconds until 20 heartbeats have come back (the lag falls
    // each time one does), never lost: a heartbeat not back within a second drops the connection
    // (Infinity), and one comes back at least that often.
    const lags = [b.revocations.lagMs()];
    let heartbeats = 0;
    await until(() => {
      const lag = b.revocations.lagMs();
      if (lag < lags.at(-1)!) heartbeats++;
      lags.push(lag);
      return heartbeats >= 20;
    }, 10_000, '20 heartbeats back');
    expect(Math.max(...lags)).toBeLessThan(5_000);
    expect(b.poolStats?.().total).toBe(0);
    expect(await feedConnections(database)).toBe(1);
  });

  it('opens one connection however many subscribe, and none before the first', async () => {
    expect(await feedConnections(database)).toBe(0);
    const first = await listen(b.revocations);
    const second = new Heard();
    b.revocations.subscribe(second);
    const [digest] = await sessions(a);
    await a.sessions.delete(digest!);
    await caughtUpPastNow(b.revocations);
    expect(first.events).toEqual([[digest]]);
    expect(second.events).toEqual([[digest]]);
    expect(await feedConnections(database)).toBe(1);
  });

  it('closes with the store promptly, leaving no connection and no reconnect behind', async () => {
    await listen(b.revocations);
    expect(await feedConnections(database)).toBe(1);
    const started = performance.now();
    await b.close();
    // About half a second at most for the feed's goodbye (`pnpm bench` reports it); generous here.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(b.revocations.lagMs()).toBe(Number.POSITIVE_INFINITY);
    expect(b.revocationFeedStatus!().reconnectScheduled).toBe(false);
    expect(await feedConnectionsSettle(database, 0)).toBe(0);
  });
});

describe.skipIf(postgres.skip)(`the revocation feed through a failing network, on ${postgres.title}`, () => {
  let database: ServerDatabase;
  let writer: PostgresTestStore;
  let proxy: TcpProxy;
  let store: PostgresStore;
  let errors: Error[];
  beforeEach(async () => {
    database = await createTestDatabase();
    writer = openTestStore(database);
    await writer.migrate();
    const url = new URL(database.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${proxy.port}`;
    errors = [];
    // A short bound on connecting: a connection attempt that meets a silent network is given up soon.
    store = createPostgresStore({ connectionString: url.toString(), timeoutMs: 1_000, onError: (error) => errors.push(error) });
  });
  afterEach(async () => {
    await Promise.all([writer.close(), store.close()]);
    await proxy.close();
    await database.drop();
  });

  it('is not caught up while its connection is cut; back, it says "all", then hears what comes next', async () => {
    const heard = await listen(store.revocations);
    const [missed, next] = await sessions(writer, 2);
    const opened = store.revocationFeedStatus!().connectionsOpened;
    await proxy.cut();
    await until(() => store.revocations.lagMs() === Number.POSITIVE_INFINITY, 5_000, 'not caught up');
    await writer.sessions.delete(missed!);
    // The feed keeps trying (100 ms, doubling): three attempts fail, with one report for the whole outage.
    await until(() => store.revocationFeedStatus!().connectionsOpened >= opened + 3 && store.revocationFeedStatus!().reconnectScheduled, 10_000, 'three reconnection attempts');
    expect(store.revocations.lagMs()).toBe(Number.POSITIVE_INFINITY);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/^session revocation feed: /);
    expect(heard.events).toEqual([]);

    await proxy.restore();
    await until(() => store.revocations.lagMs() < Number.POSITIVE_INFINITY, 5_000, 'caught up again');
    expect(heard.events).toEqual(['all']);
    await writer.sessions.delete(next!);
    await caughtUpPastNow(store.revocations);
    expect(heard.events).toEqual(['all', [next]]);
  });

  it('on a network gone silent, stops advancing at once, drops the connection within about a second, and recovers', async () => {
    const heard = await listen(store.revocations);
    proxy.silence();
    const silencedAt = performance.now();
    // The last heartbeat confirmed is the last one sent before the silence: at once older than the bound.
    await until(() => store.revocations.lagMs() > STALENESS_MS, 2_000, 'older than the bound');
    const sinceSilence = performance.now() - silencedAt;
    expect(store.revocations.lagMs()).toBeGreaterThan(sinceSilence);
    await until(() => store.revocations.lagMs() === Number.POSITIVE_INFINITY, 5_000, 'dropped');
    expect(errors.map((e) => e.message)).toEqual(['session revocation feed: no heartbeat back within 1000 ms; cached sessions are not served until it listens again']);

    proxy.release();
    await until(() => store.revocations.lagMs() < Number.POSITIVE_INFINITY, 10_000, 'caught up again');
    expect(heard.events).toEqual(['all']);
    expect(await feedConnections(database)).toBe(1);
  });

  it('closed while waiting to reconnect, it never reconnects', async () => {
    await listen(store.revocations);
    await proxy.cut();
    await until(() => store.revocations.lagMs() === Number.POSITIVE_INFINITY, 5_000, 'not caught up');
    await until(() => store.revocationFeedStatus!().reconnectScheduled, 5_000, 'a reconnect scheduled');
    const started = performance.now();
    await store.close();
    expect(performance.now() - started).toBeLessThan(5_000); // no connection to say goodbye on: at once (generous here)
    // The scheduled reconnect is gone with it, and no other is ever scheduled (a closed feed schedules none).
    const { connectionsOpened } = store.revocationFeedStatus!();
    expect(store.revocationFeedStatus!().reconnectScheduled).toBe(false);
    await proxy.restore();
    expect(await feedConnectionsSettle(database, 0)).toBe(0);
    expect(store.revocationFeedStatus!()).toEqual({ connectionsOpened, reconnectScheduled: false, nextBackoffMs: expect.any(Number) });
  });
});

describe.skipIf(postgres.skip)(`a process with a revocation feed, on ${postgres.title}`, () => {
  let database: ServerDatabase;
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(() => database.drop());

  /** Runs a script that opens a store and a feed; returns its exit code and how long it ran after "caught up". */
  async function run(close: boolean): Promise<{ readonly code: number | null; readonly output: string; readonly afterMs: number }> {
    const entry = fileURLToPath(import.meta.resolve('@sl-accounts/store-postgres'));
    const script = `
      const { createPostgresStore } = await import(${JSON.stringify(entry)});
      const store = createPostgresStore({ connectionString: process.env.URL });
      store.revocations.subscribe({ revoked() {} });
      const close = ${close};
      // One loop: the close follows the line it printed (two loops could see the feed caught up in either order).
      const wait = () => {
        if (store.revocations.lagMs() === Infinity) return void setTimeout(wait, 5);
        console.log('caught up');
        if (close) void store.close().then(() => console.log('closed'));
      };
      wait();
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, URL: database.url }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let caughtUpAt = Number.NaN;
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (Number.isNaN(caughtUpAt) && output.includes('caught up')) caughtUpAt = performance.now();
      });
    }
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(kill);
    return { code, output, afterMs: performance.now() - caughtUpAt };
  }

  it('is not kept alive by the feed: it exits by itself once caught up, with the feed still connected', async () => {
    await withSql(database.url, async () => {}); // the database answers
    const { code, output, afterMs } = await run(false);
    expect(output).toBe('caught up\n');
    expect(code).toBe(0);
    expect(afterMs).toBeLessThan(5_000); // at once (the child is killed after 10 s)
  });

  it('closes the feed cleanly with the store', async () => {
    const { code, output } = await run(true);
    expect(output).toBe('caught up\nclosed\n');
    expect(code).toBe(0);
    expect(await feedConnectionsSettle(database, 0)).toBe(0);
  });
});

describe.skipIf(pglite.skip)(`the revocations of a PGlite store, on ${pglite.title}`, () => {
  let store: PostgresTestStore;
  beforeEach(async () => {
    store = await openMigratedTestStore(await createPGliteDatabase());
  });
  afterEach(() => store.close());

  it('are the store’s own deletes and sweeps, heard before the call returns; always caught up', async () => {
    const heard = new Heard();
    store.revocations.subscribe(heard);
    expect(store.revocations.lagMs()).toBe(0);
    const [digest] = await sessions(store);
    const expired = await sessions(store, 2, T0);
    const [live] = await sessions(store, 1, new Date(T0.getTime() + 60_000));
    expect(await store.sessions.delete(digest!)).not.toBeNull();
    expect(heard.events).toEqual([[digest]]);
    expect(await store.sessions.delete(digest!)).toBeNull();
    expect(heard.events).toEqual([[digest]]);
    expect((await store.deleteExpired(T0)).sessions).toBe(2);
    expect(heard.events).toHaveLength(2);
    expect([...heard.events[1]!].sort()).toEqual([...expired].sort());
    expect((await store.deleteExpired(T0)).sessions).toBe(0);
    expect(heard.events).toHaveLength(2);
    expect(await store.sessions.findWithUser(live!)).not.toBeNull();
  });
});
