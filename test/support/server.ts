/**
 * Starts the real server (the composition root of @sl/server) on a free port, under either host: the
 * Koa adapter that `pnpm start` runs, or the plain node:http example.
 */
import { pino } from 'pino';
import { createApp } from '@sl/http-koa';
import { nodeHost } from '@sl/example-node-http';
import { loadConfig, startServer, type Host, type RunningServer, type ServerOverrides } from '@sl/server';
import { createPGliteDatabase, createServerDatabase, sharedPostgresServer, type TestDatabase } from './postgres.ts';

export type StoreKind = 'memory' | 'postgres' | 'pglite';
export type HostKind = 'koa' | 'node';

export const HOSTS: Readonly<Record<HostKind, Host>> = {
  koa: (service) => createApp(service).callback(),
  node: nodeHost,
};
export const HOST_KINDS = Object.keys(HOSTS) as HostKind[];

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
    const running = await startServer(config, HOSTS[host], { logger: pino({ level: config.logLevel }), ...overrides });
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

async function openDatabase(store: StoreKind): Promise<TestDatabase | null> {
  if (store === 'memory') return null;
  if (store === 'pglite') return createPGliteDatabase();
  const server = await sharedPostgresServer();
  if (!server) throw new Error('the postgres store needs a PostgreSQL server: set DATABASE_URL, or run one on 127.0.0.1:5432');
  return createServerDatabase(server);
}

function storeEnv(store: StoreKind, database: TestDatabase | null): Record<string, string> {
  if (!database) return { STORE: store };
  return database.kind === 'server' ? { STORE: 'postgres', DATABASE_URL: database.url } : { STORE: 'pglite', DATA_DIR: database.dataDir };
}

/** The stores the end-to-end suites run on. */
export const STORE_KINDS: readonly StoreKind[] = ['memory', 'pglite', 'postgres'];

/** Every host on every store: for the suites whose cases depend on the store. */
export const MATRIX: readonly { readonly host: HostKind; readonly store: StoreKind }[] = HOST_KINDS.flatMap((host) =>
  STORE_KINDS.map((store) => ({ host, store })),
);
