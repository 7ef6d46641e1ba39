/**
 * Starts the real server (the composition root of `@sl-accounts/server`) on a free port, under any host: the
 * Koa app of `pnpm start` (`koaServer()`), node:http, or one of the embedding examples (examples/<host>), each an app
 * of its kind with its own routes and body parsing. In `pnpm test:unit` (TEST_IN_PROCESS=1) the
 * same service is composed without a socket and the suites' fetch calls reach `api.handle` directly
 * (in-process.ts): the one host of that run, `in-process`.
 */
import { rmSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pino } from 'pino';
import { loadConfig, startServer, type ListenerFactory, type RunningServer, type ServerOverrides } from '@sl-accounts/server';
import { describe } from 'vitest';
import { testStores, type StoreKind, type TestStore } from '@sl-accounts/store-contract';
import type { TestDatabase } from '@sl-accounts/store-postgres/testing';
import { IN_PROCESS, startInProcess } from './in-process.ts';

export type HostKind = 'koa' | 'node' | 'koa-app' | 'express' | 'fastify' | 'hono' | 'in-process';

/**
 * The request listener of a host, imported when asked for: the unit run loads none of the frameworks.
 * `in-process` has none: its requests never reach a listener.
 */
export async function hostListener(host: Exclude<HostKind, 'in-process'>): Promise<ListenerFactory> {
  switch (host) {
    case 'koa':
      return (await import('@sl-accounts/server')).koaServer();
    case 'node':
      return (await import('@sl-accounts/example-node-http')).nodeHost;
    case 'koa-app':
      return (await import('@sl-accounts/example-koa')).koaAppHost;
    case 'express':
      return (await import('@sl-accounts/example-express')).expressHost;
    case 'fastify':
      return (await import('@sl-accounts/example-fastify')).fastifyHost;
    case 'hono':
      return (await import('@sl-accounts/example-hono')).honoHost;
  }
}
/**
 * The hosts every suite runs under, on every store: the Koa app of `pnpm start` (`koaServer()` of
 * `@sl-accounts/server`, nothing added) and node:http;
 * in the unit run, the contract itself, in-process.
 */
export const HOST_KINDS: HostKind[] = IN_PROCESS ? ['in-process'] : ['koa', 'node'];
/**
 * The embedding examples, each an app of its kind with its own routes and body parsing (`koa-app`:
 * examples/koa, with koa-bodyparser): the suites whose answers depend on the host run under each,
 * on the memory store, at the root and under a base path.
 */
export const EXAMPLE_HOST_KINDS: HostKind[] = ['koa-app', 'express', 'fastify', 'hono', 'node'];

/** A host and the base path the service is mounted under there ('' for the root). */
export interface MountRow {
  readonly host: HostKind;
  readonly basePath: string;
  /**
   * Whether the contract answers every path of the server, unknown ones included (404): the service
   * alone, or under a base path (where the whole prefix is the service's). At the root of an
   * example, paths the service does not own are the app's own, and its framework answers them.
   */
  readonly ownsAll: boolean;
}

/** The two hosts at the root, then every example at the root and under `/accounts`. */
const ALL_MOUNTS: readonly MountRow[] = [
  ...HOST_KINDS.map((host) => ({ host, basePath: '', ownsAll: true })),
  // The node:http example at the root is HOST_KINDS' node host: listed once.
  ...EXAMPLE_HOST_KINDS.flatMap((host) => ['', '/accounts'].filter((basePath) => !(basePath === '' && HOST_KINDS.includes(host))).map((basePath) => ({ host, basePath, ownsAll: basePath !== '' || host === 'node' }))),
];
/**
 * Every mount for `pnpm test`. The unit run has one host, the contract in-process, at the root and
 * under a base path (where the contract's own routing and links change).
 */
export const MOUNTS: readonly MountRow[] = IN_PROCESS ? ['', '/accounts'].map((basePath) => ({ host: 'in-process', basePath, ownsAll: true })) : ALL_MOUNTS;

/**
 * Low work factor for speed; one suite runs the default 600000 on purpose. The unit run hashes at
 * one iteration, as `testHasher` does (its thousand iterations were 1.1 s of its 34 s of CPU,
 * profiled on 2026-12-06): no case there measures the hash's cost.
 */
export const TEST_ITERATIONS = IN_PROCESS ? 1 : 1_000;

export interface TestServerOptions extends ServerOverrides {
  readonly host?: HostKind;
  readonly store?: StoreKind;
  /** Extra environment, as a user would set it (e.g. `{ TRUST_PROXY: '1' }`). */
  readonly env?: Record<string, string>;
}

/** Every server gets a fresh database of its own, dropped again by `close()`. */
export async function startTestServer(options: TestServerOptions = {}): Promise<RunningServer> {
  const { host = HOST_KINDS[0]!, store = 'memory', env = {}, ...overrides } = options;
  if (IN_PROCESS !== (host === 'in-process')) throw new Error(`the ${host} host does not run in ${IN_PROCESS ? 'the unit run: the case belongs to pnpm test' : 'pnpm test'}`);
  const database = await openDatabase(store);
  try {
    const config = loadConfig({ PORT: '0', PBKDF2_ITERATIONS: String(TEST_ITERATIONS), LOG_LEVEL: 'silent', ...storeEnv(store, database), ...env });
    const withLogger = { logger: pino({ level: config.logLevel }), ...overrides };
    const running = host === 'in-process' ? await startInProcess(config, withLogger) : await startServer(config, await hostListener(host), withLogger);
    if (!database) return running;
    let closing: Promise<void> | undefined;
    return {
      url: running.url,
      metricsUrl: running.metricsUrl,
      get server() {
        return running.server;
      },
      accounts: running.accounts,
      logger: running.logger,
      close: () =>
        (closing ??= (async () => {
          try {
            await running.close();
          } finally {
            await database.drop();
          }
        })()),
    };
  } catch (error) {
    await database?.drop();
    throw error;
  }
}

/**
 * A SQLite file migrated once in this process, which each server's directory starts from a copy of
 * (a fresh file's migrations cost four times a copy: 41 and 10 ms), as the Postgres databases below
 * start migrated: the migrations' own cases are store-sqlite's. Removed when the process exits.
 */
let sqliteTemplate: Promise<string> | undefined;
const migratedSQLite = () =>
  (sqliteTemplate ??= (async () => {
    const { createSQLiteStore, SQLITE_FILE } = await import('@sl-accounts/store-sqlite');
    const dir = await mkdtemp(join(tmpdir(), 'sl-sqlite-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const store = createSQLiteStore({ dataDir: dir });
    await store.migrate();
    await store.close();
    return join(dir, SQLITE_FILE);
  })());

/** A SQLite file's directory, its file migrated, removed by `drop()` (the server opens the file and finds it migrated). */
interface SQLiteDirectory {
  readonly kind: 'sqlite';
  readonly dataDir: string;
  drop(): Promise<void>;
}

async function openDatabase(store: StoreKind): Promise<TestDatabase | SQLiteDirectory | null> {
  if (store === 'memory') return null;
  if (store === 'sqlite') {
    const dataDir = await mkdtemp(join(tmpdir(), 'sl-sqlite-server-'));
    const template = await migratedSQLite();
    await copyFile(template, join(dataDir, basename(template)));
    return { kind: 'sqlite', dataDir, drop: () => rm(dataDir, { recursive: true, force: true }) };
  }
  const { createPGliteDatabase, createTestDatabase } = await import('@sl-accounts/store-postgres/testing');
  // Migrated, as the server would migrate it at its start: the migrations' own cases are store-postgres's.
  return store === 'pglite' ? createPGliteDatabase({ migrated: true }) : createTestDatabase({ migrated: true });
}

function storeEnv(store: StoreKind, database: TestDatabase | SQLiteDirectory | null): Record<string, string> {
  if (!database) return { STORE: store };
  if (database.kind === 'sqlite') return { STORE: 'sqlite', DATA_DIR: database.dataDir };
  return database.kind === 'server' ? { STORE: 'postgres', DATABASE_URL: database.url } : { STORE: 'pglite', DATA_DIR: database.dataDir };
}

/** This run's stores (TEST_STORES; a store that cannot run is skipped with its reason, never replaced). */
export const STORES: readonly TestStore[] = await testStores({ postgres: async () => (await import('@sl-accounts/store-postgres/testing')).locatePostgres() });

export interface ServerRow {
  readonly host: HostKind;
  readonly store: StoreKind;
  /** `koa host, postgres (local server 127.0.0.1:5432)`, or why the store is skipped. */
  readonly title: string;
  readonly skip: string | undefined;
}

/**
 * For the suites whose cases depend on the store: the first host on the memory store, PGlite and
 * PostgreSQL, and every other host on the memory store. A host only copies requests in and answers
 * out, whatever the store, so each other host on the other stores would repeat what the first host
 * showed of them.
 *
 * SQLite is not in it: what an HTTP suite asks of a store is the store port, and the store contract
 * (packages/store-sqlite/test/store-contract.test.ts) proves every member of it on SQLite, races
 * included; the HTTP suites on SQLite repeated the memory store's answers at a quarter of
 * `pnpm test`'s time. SQLite runs over HTTP where it changes the answer: the logins racing a change
 * of credential across the hash's wait (`MATRIX_WITH_SQLITE`, credential-races.test.ts), its start
 * and its file (start-checks, startup-log), a full disk (store-sqlite's full-disk.test.ts), the
 * outbox through a real SMTP server (mail.test.ts) and the black-box run under `pnpm start`
 * (spec-run.test.ts). docs/testing.md lists them.
 */
export const MATRIX_WITH_SQLITE: readonly ServerRow[] = HOST_KINDS.flatMap((host, i) =>
  STORES.filter((store) => i === 0 || store.kind === 'memory').map((store) => ({ host, store: store.kind, title: `${host} host, ${store.title}`, skip: store.skip })),
);

/** This run's stores but SQLite: the stores of the suites that loop over stores themselves (see MATRIX). */
export const SERVER_STORES: readonly TestStore[] = STORES.filter((store) => store.kind !== 'sqlite');

/** `MATRIX_WITH_SQLITE` without SQLite: the rows of every store-dependent HTTP suite. */
export const MATRIX: readonly ServerRow[] = MATRIX_WITH_SQLITE.filter((row) => row.store !== 'sqlite');

/** One `describe` per row, skipped (with the reason in its title) where the store cannot run. */
export function describeEachServer(name: string, rows: readonly ServerRow[], body: (row: ServerRow) => void): void {
  for (const row of rows) describe.skipIf(row.skip !== undefined)(`${name} on the ${row.title}`, () => body(row));
}
