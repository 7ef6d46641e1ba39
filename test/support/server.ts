/**
 * Starts the real server (the composition root of @sl-accounts/server) on a free port, under any host: the
 * Koa adapter that `pnpm start` runs, or one of the embedding examples (examples/<host>), each an app
 * of its kind with its own routes and body parsing.
 */
import type { RequestListener } from 'node:http';
import { pino } from 'pino';
import { createApp } from '@sl-accounts/http-koa';
import { nodeHost } from '@sl-accounts/example-node-http';
import { koaAppHost } from '@sl-accounts/example-koa';
import { expressHost } from '@sl-accounts/example-express';
import { fastifyHost } from '@sl-accounts/example-fastify';
import { honoHost } from '@sl-accounts/example-hono';
import { loadConfig, startServer, type ListenerFactory, type RunningServer, type ServerOverrides } from '@sl-accounts/server';
import { describe } from 'vitest';
import { testStores, type StoreKind, type TestStore } from '@sl-accounts/store-contract';
import { createPGliteDatabase, createTestDatabase, locatePostgres, type TestDatabase } from '@sl-accounts/store-postgres/testing';
import { IN_PROCESS, capturingHost, register } from './in-process.ts';

export type HostKind = 'koa' | 'node' | 'koa-app' | 'express' | 'fastify' | 'hono';

export const HOSTS: Readonly<Record<HostKind, ListenerFactory>> = {
  koa: (service) => createApp(service).callback(),
  node: nodeHost,
  'koa-app': koaAppHost,
  express: expressHost,
  fastify: fastifyHost,
  hono: honoHost,
};
/** The hosts every suite runs under, on every store: the Koa server of `pnpm start` and node:http. */
export const HOST_KINDS: HostKind[] = ['koa', 'node'];
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
  ...EXAMPLE_HOST_KINDS.flatMap((host) => ['', '/accounts'].map((basePath) => ({ host, basePath, ownsAll: basePath !== '' || host === 'node' }))),
];
/**
 * Every mount for `pnpm test`. The quick in-process run (`pnpm test:unit`) keeps the contract's own
 * hosts and one example under a prefix: each further example repeats the same contract cases through
 * another framework, which `pnpm test` covers, and would double the quick run's time.
 */
export const MOUNTS: readonly MountRow[] = IN_PROCESS
  ? ALL_MOUNTS.filter((m) => (HOST_KINDS as readonly string[]).includes(m.host) || (m.host === 'koa-app' && m.basePath !== ''))
  : ALL_MOUNTS;

/** Low work factor for speed; one suite runs the default 600000 on purpose. */
export const TEST_ITERATIONS = 1_000;

export interface TestServerOptions extends ServerOverrides {
  readonly host?: HostKind;
  readonly store?: StoreKind;
  /** Extra environment, as a user would set it (e.g. `{ TRUST_PROXY: '1' }`). */
  readonly env?: Record<string, string>;
}

/** Every server gets a fresh database of its own, dropped again by `close()`. */
export async function startTestServer(options: TestServerOptions = {}): Promise<RunningServer> {
  const { host = 'koa', store = 'memory', env = {}, ...overrides } = options;
  const database = await openDatabase(store);
  try {
    const config = loadConfig({ PORT: '0', PBKDF2_ITERATIONS: String(TEST_ITERATIONS), LOG_LEVEL: 'silent', ...storeEnv(store, database), ...env });
    // TEST_IN_PROCESS (pnpm test:unit): the host's listener answers the suites' fetch calls directly.
    const capture = IN_PROCESS ? capturingHost(HOSTS[host]) : undefined;
    const started = await startServer(config, capture ? capture.host : HOSTS[host], { logger: pino({ level: config.logLevel }), ...overrides });
    const running = capture ? inProcess(started, capture.listener()) : started;
    if (!database) return running;
    let closing: Promise<void> | undefined;
    return {
      ...running,
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

/** `running`, with fetch calls to it answered in-process until it closes. */
function inProcess(running: RunningServer, listener: RequestListener): RunningServer {
  const unregister = register(running.url, listener);
  return {
    ...running,
    close: async () => {
      unregister();
      await running.close();
    },
  };
}

async function openDatabase(store: StoreKind): Promise<TestDatabase | null> {
  if (store === 'memory') return null;
  return store === 'pglite' ? createPGliteDatabase() : createTestDatabase();
}

function storeEnv(store: StoreKind, database: TestDatabase | null): Record<string, string> {
  if (!database) return { STORE: store };
  return database.kind === 'server' ? { STORE: 'postgres', DATABASE_URL: database.url } : { STORE: 'pglite', DATA_DIR: database.dataDir };
}

/** This run's stores (TEST_STORES; a store that cannot run is skipped with its reason, never replaced). */
export const STORES: readonly TestStore[] = await testStores({ postgres: locatePostgres });

export interface ServerRow {
  readonly host: HostKind;
  readonly store: StoreKind;
  /** `koa host, postgres (local server 127.0.0.1:5432)`, or why the store is skipped. */
  readonly title: string;
  readonly skip: string | undefined;
}

/** Every host on every store: for the suites whose cases depend on the store. */
export const MATRIX: readonly ServerRow[] = HOST_KINDS.flatMap((host) =>
  STORES.map((store) => ({ host, store: store.kind, title: `${host} host, ${store.title}`, skip: store.skip })),
);

/** One `describe` per row, skipped (with the reason in its title) where the store cannot run. */
export function describeEachServer(name: string, rows: readonly ServerRow[], body: (row: ServerRow) => void): void {
  for (const row of rows) describe.skipIf(row.skip !== undefined)(`${name} on the ${row.title}`, () => body(row));
}
