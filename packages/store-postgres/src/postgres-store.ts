import pg from 'pg';
import { Kysely, PGliteDialect, PostgresDialect, sql, type Compilable, type QueryCreator } from 'kysely';
import { DEFAULT_SERVICE_NAME, InProcessRevocations, type Repositories, type SessionRevocations, type Store } from '@sl-accounts/service/core';
import { statement, throughKysely, type RunStatement } from './compiled.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { importPGlite } from './import-pglite.ts';
import { initDataDir } from './init-data-dir.ts';
import type { Database } from './database.ts';
import { migrateToLatest } from './migrations.ts';
import { contactRepository, outboxRepository, PostgresMailOutbox } from './outbox.ts';
import { preparingPool } from './prepared-pool.ts';
import { pgliteStartParams } from './pglite-settings.ts';
import { openPrivatePGlite, privateDataDir } from './private-data-dir.ts';
import { PostgresRateLimiter } from './rate-limiter.ts';
import { PostgresRevocationFeed, type RevocationFeedStatus } from './revocation-feed.ts';
import { sessionRepository } from './sessions.ts';
import { DEFAULT_DB_TIMEOUT_MS } from './settings.ts';
import { PostgresDeviceKeyStore } from './device-key-store.ts';
import { deleteExpiredTokens, oneTimeTokenRepository } from './tokens.ts';
import { passkeyRepository } from './passkeys.ts';
import { identityRepository } from './identities.ts';
import { unitOn, type Unit } from './unit.ts';
import { userRepository } from './users.ts';
import { activityRepository } from './activity.ts';
import { directoryOn } from './directory.ts';
import { recoveryCodeRepository, totpRepository } from './second-factors.ts';

/** Every store port and the limiter on one Postgres (or PGlite) database, plus its lifecycle. */
export interface PostgresStore extends Store {
  /** Applies pending migrations and returns their names; safe when several processes run it at once. */
  migrate(): Promise<readonly string[]>;
  /** The connection pool's use now (a Postgres server only; PGlite has one connection and no pool). */
  poolStats?(): PoolStats;
  /**
   * What the revocation feed's own connection is doing now (a Postgres server only; on PGlite the
   * store publishes its own deletes).
   */
  revocationFeedStatus?(): RevocationFeedStatus;
}

/** How a pool is used at one moment. */
export interface PoolStats {
  /** Connections open, idle or busy. */
  readonly total: number;
  readonly idle: number;
  /** Statements waiting for a connection. */
  readonly waiting: number;
}

/** Where a Postgres server is and how the store uses it. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` */
  readonly connectionString: string;
  /** Most connections the pool opens. Default 10: plenty for a 2-core machine, whose CPU is the limit. */
  readonly poolSize?: number;
  /**
   * Bound on each statement, in milliseconds, from asking for a pooled connection to its answer:
   * past it the statement fails with StoreUnavailable (HTTP 503). Default `DEFAULT_DB_TIMEOUT_MS`.
   * Migrations are not bounded: one may take long, or wait for another process's migration.
   */
  readonly timeoutMs?: number;
  /**
   * Receives errors of idle pooled connections (the server restarted, the network dropped). The pool
   * discards such connections and opens new ones on demand, so these need no handling beyond a log.
   */
  readonly onError?: (error: Error) => void;
  /**
   * Receives the first error of each outage of the revocation feed's connection; the feed reconnects
   * by itself, and a session cache is bypassed meanwhile. Default: `onError`.
   */
  readonly onRevocationFeedError?: (error: Error) => void;
  /**
   * How often the revocation feed confirms it is caught up while a session cache uses it; default
   * 25 ms, for a cache that answers from memory only while the feed is at most 100 ms behind.
   */
  readonly revocationHeartbeatMs?: number;
}

/** How long `close()` waits for statements still running before it drops their connections. */
const END_TIMEOUT_MS = 1_000;

/**
 * The store on a Postgres server through a pg pool. Queries that cannot reach the server reject with
 * core's StoreUnavailable; once the server is back, new connections are opened and requests succeed again.
 */
export function createPostgresStore(options: PostgresStoreOptions): PostgresStore {
  return openPostgres(options).store;
}

/**
 * A store and the Kysely instance it runs on. Inside this package only (the entry does not export
 * it): the testing module reads rows that no port reads back through the store's own connection,
 * which on PGlite is the only one there can be.
 */
export interface StoreAndKysely {
  readonly store: PostgresStore;
  readonly db: Kysely<Database>;
}

/** createPostgresStore, with the Kysely instance. */
export function openPostgres(options: PostgresStoreOptions): StoreAndKysely {
  // Without one, pg would try its defaults (a local server, the OS user) and fail deep in a connect
  // with a stack that names neither the option nor the variable a snippet reads it from.
  const { connectionString } = options as { connectionString?: unknown };
  if (typeof connectionString !== 'string' || connectionString.trim() === '') {
    throw new TypeError(`createPostgresStore needs a connectionString (postgres://user@host:5432/db), got ${connectionString === '' ? 'an empty string' : String(connectionString)}: is DATABASE_URL set?`);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_DB_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    // Waiting for a pooled connection, or for a new one to be ready, fails after the bound (503).
    connectionTimeoutMillis: timeoutMs,
    // The server gives up on a statement at the bound too, so a statement the client abandoned
    // (its connection dropped) holds no locks and burns no CPU for longer than the bound.
    statement_timeout: timeoutMs,
    idleTimeoutMillis: 30_000,
    // Idle connections to a peer that vanished (a silent partition, a crashed host) are noticed after
    // 5 s of quiet plus 10 unanswered probes 1 s apart (Node sets the probe interval and count).
    keepAlive: true,
    keepAliveInitialDelayMillis: 5_000,
    application_name: DEFAULT_SERVICE_NAME,
  });
  // Without these listeners a dropped connection would be an unhandled 'error' event: the process
  // would crash. An idle client's error reaches the pool's listener; a checked-out client's error
  // also rejects its query, where the caller sees it, so its own listener only has to exist.
  pool.on('error', (error) => options.onError?.(error));
  pool.on('connect', (client) => client.on('error', () => {}));
  const bounded = preparingPool(pool, { statementTimeoutMs: timeoutMs, endTimeoutMs: END_TIMEOUT_MS });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: bounded }) });
  // Migrations share the pool but not the statement bound (see `timeoutMs`).
  const unbounded = new Kysely<Database>({ dialect: new PostgresDialect({ pool: bounded.unbounded }) });
  const poolStats = (): PoolStats => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
  // Its own connection, opened when a session cache first subscribes.
  const onFeedError = options.onRevocationFeedError ?? options.onError;
  const revocations = new PostgresRevocationFeed({
    connectionString: options.connectionString,
    connectTimeoutMs: timeoutMs,
    ...(options.revocationHeartbeatMs === undefined ? {} : { heartbeatMs: options.revocationHeartbeatMs }),
    ...(onFeedError ? { onError: onFeedError } : {}),
  });
  const store = storeOn(db, { rows: bounded.rows, transaction: (work) => bounded.transaction(work), batchReads: true }, revocations);
  return {
    store: {
      ...store,
      migrate: () => migrateToLatest(unbounded),
      poolStats,
      revocationFeedStatus: () => revocations.status(),
      close: async () => {
        await revocations.close();
        // The pool's own end, not only Kysely's: Kysely ends its pool only once it has run a query
        // itself, and the hot statements (`bounded.rows`) and migrations run beside it.
        await Promise.all([store.close(), unbounded.destroy(), bounded.end()]);
      },
    },
    db,
  };
}

/** Where an embedded PGlite keeps its files, and its settings. */
export interface PGliteStoreOptions {
  /** Directory of the database files, created when missing. Omitted or `memory://`: in memory only. */
  readonly dataDir?: string;
  /**
   * Postgres settings (`shared_buffers: '64MB'`) over `DEFAULT_PGLITE_SETTINGS`, which size the
   * database for a small machine.
   */
  readonly settings?: Readonly<Record<string, string>>;
}

/**
 * The same store on embedded PGlite (Postgres compiled to WebAssembly, in this process). PGlite
 * cannot share its files, so a lock file keeps a second process (or store) off the directory.
 */
export function createPGliteStore(options: PGliteStoreOptions = {}): PostgresStore {
  return openPGlite(options).store;
}

/** createPGliteStore, with the Kysely instance. */
export function openPGlite(options: PGliteStoreOptions = {}): StoreAndKysely {
  const { dataDir, settings } = options;
  let unlock: (() => Promise<void>) | undefined;
  const dialect = new PGliteDialect({
    // Loaded on first use, so a server on a Postgres server never loads PGlite's WebAssembly.
    pglite: async () => {
      if (!dataDir || dataDir.includes('://')) {
        const { PGlite } = await importPGlite();
        return PGlite.create({ ...(dataDir ? { dataDir } : {}), startParams: pgliteStartParams(PGlite.defaultStartParams, settings) });
      }
      await privateDataDir(dataDir);
      const release = await lockDataDir(dataDir);
      try {
        await initDataDir(dataDir, settings);
        const pglite = await openPrivatePGlite(dataDir, settings);
        unlock = release;
        return pglite;
      } catch (error) {
        await release();
        throw error;
      }
    },
  });
  const db = new Kysely<Database>({ dialect });
  // This process is the directory's only writer, so the session store's own deletes are every revocation.
  const revocations = new InProcessRevocations();
  // One connection: a unit of work holds it, and every other statement waits for the unit to end.
  const store = storeOn(db, { rows: throughKysely(db), transaction: (work) => db.transaction().execute((trx) => work(throughKysely(trx))) }, revocations, revocations);
  return {
    store: {
      ...store,
      close: async () => {
        try {
          await store.close();
        } finally {
          await unlock?.();
        }
      },
    },
    db,
  };
}

/** How statements run: one at a time on any connection, or together in a unit of work on one. */
interface Connections {
  readonly rows: RunStatement;
  transaction<T>(work: (run: RunStatement) => Promise<T>): Promise<T>;
  /**
   * Session lookups of one turn go out as one statement (sessions.ts, `batchedLookups`): on a server's
   * pool, where each statement costs a round trip. PGlite runs statements one at a time in-process.
   */
  readonly batchReads?: boolean;
}

/** The repositories of one unit (of work, or of none). */
function repositories(unit: Unit): Repositories {
  return {
    users: userRepository(unit),
    sessions: sessionRepository(unit),
    oneTimeTokens: oneTimeTokenRepository(unit),
    contacts: contactRepository(unit),
    outbox: outboxRepository(unit),
    passkeys: passkeyRepository(unit),
    totp: totpRepository(unit),
    recoveryCodes: recoveryCodeRepository(unit),
    identities: identityRepository(unit),
    activity: activityRepository(unit),
  };
}

/**
 * A unit of work that PostgreSQL rolled back as a deadlock's victim (40P01) or a serialization failure
 * (40001) runs again, whole, up to UNIT_ATTEMPTS times in all; then the error is passed on. Defence in
 * depth: the units take the account's row before its dependents (a token's take locks the row first,
 * as the deletion does), so no known pair of units deadlocks, but an order missed would otherwise be a
 * 500 where waiting and running again gives the answer. Safe to run again: a unit is the core's closure
 * over the repositories of its own transaction (store calls only: nothing outside the store, such as a
 * mail or a cache, is touched before it commits; the rolled-back attempt left nothing), and the
 * sessions it ends are told to the feed only after the attempt that committed.
 */
const RETRIED_STATES = new Set(['40P01', '40001']);
const UNIT_ATTEMPTS = 3;

const deleteExpiredSessions = statement(1, (db, now: Date) => db.deleteFrom('sessions').where('expires_at', '<=', now).returning('token_digest'));
/** How many rows a delete deleted, as one row: `{ n }`. */
const counted = <Q extends Compilable<unknown>>(db: Kysely<Database>, deleted: (db: QueryCreator<Database>) => Q) =>
  db.with('deleted', (q) => deleted(q) as never).selectFrom('deleted').select(sql<number>`count(*)::int`.as('n'));
// Stand-ins (rows without a recipient) due by now: they were never to be sent.
const deleteStandIns = statement(1, (db, now: Date) => counted(db, (q) => q.deleteFrom('mail_outbox').where('recipient', 'is', null).where('due_at', '<=', now).returning('id')));

/**
 * The store on `db`; `connections` run the repositories' statements (straight on the pool on a
 * Postgres server, through `db` on PGlite); `published`, when given, hears every session deleted or
 * changed (PGlite: this process is the only writer, and no trigger tells it).
 */
function storeOn(db: Kysely<Database>, connections: Connections, revocations: SessionRevocations, published?: InProcessRevocations): PostgresStore {
  const { rows } = connections;
  const outside = repositories({ ...unitOn(rows, false, published), batchReads: connections.batchReads ?? false });
  return {
    ...outside,
    outbox: new PostgresMailOutbox(db, outside.outbox),
    async transaction(work) {
      for (let attempt = 1; ; attempt++) {
        let unit: ReturnType<typeof unitOn> | undefined;
        try {
          const result = await connections.transaction((run) => work(repositories((unit = unitOn(run, true, published)))));
          unit?.committed();
          return result;
        } catch (error) {
          if (attempt >= UNIT_ATTEMPTS || !RETRIED_STATES.has((error as { code?: unknown } | null)?.code as string)) throw error;
        }
      }
    },
    rateLimiter: new PostgresRateLimiter(db, rows),
    deviceKeys: new PostgresDeviceKeyStore(db),
    revocations,
    directory: directoryOn(unitOn(rows, false, published)),
    async deleteExpired(now) {
      // The caller's `now`, never SQL now(): the clock is a port, and tests move it.
      const [sessions, tokens, standIns] = await Promise.all([deleteExpiredSessions(rows, now), deleteExpiredTokens(rows, now), deleteStandIns(rows, now)]);
      published?.publish(sessions.map((r) => r.token_digest));
      return { sessions: sessions.length, standIns: standIns[0]!.n, oneTimeTokens: Object.fromEntries(tokens.map((r) => [r.purpose, r.n])) };
    },
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    migrate: () => migrateToLatest(db),
    close: () => db.destroy(),
  };
}
