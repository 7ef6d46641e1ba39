/**
 * Starts the real server (the production wiring in http-koa's main.ts) on a free port for a test.
 */
import { pino } from 'pino';
import { loadConfig } from '@sl/http-koa';
import { startServer, type RunningServer, type ServerOverrides } from '../../packages/http-koa/src/main.ts';
import { createPGliteDatabase, createTestDatabase, type TestDatabase } from './postgres.ts';

/**
 * `postgres`: the Postgres adapter on a real server (DATABASE_URL, 127.0.0.1:5432 or a container; the
 * server fails to start when there is none). `pglite`: STORE=pglite on a data directory, as without DATABASE_URL.
 */
export type StoreKind = 'memory' | 'postgres' | 'pglite';

/** The stores every end-to-end suite runs against. */
export const STORE_KINDS: readonly StoreKind[] = ['memory', 'postgres', 'pglite'];

/** Low work factor for speed; one suite runs the default 600000 on purpose. */
export const TEST_ITERATIONS = 1_000;

export interface TestServerOptions extends ServerOverrides {
  readonly store?: StoreKind;
  /** Extra environment, as a user would set it (e.g. `{ TRUST_PROXY: '1' }`). */
  readonly env?: Record<string, string>;
}

/** Every server gets a fresh database of its own, dropped again by `close()`. */
export async function startTestServer(options: TestServerOptions = {}): Promise<RunningServer> {
  const { store = 'memory', env = {}, ...overrides } = options;
  const database = store === 'postgres' ? await createTestDatabase() : store === 'pglite' ? await createPGliteDatabase() : null;
  try {
    const config = loadConfig({
      PORT: '0',
      PBKDF2_ITERATIONS: String(TEST_ITERATIONS),
      LOG_LEVEL: 'silent',
      ...storeEnv(store, database),
      ...env,
    });
    const running = await startServer(config, { logger: pino({ level: config.LOG_LEVEL }), ...overrides });
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

function storeEnv(store: StoreKind, database: TestDatabase | null): Record<string, string> {
  if (!database) return { STORE: store };
  return database.kind === 'server' ? { STORE: 'postgres', DATABASE_URL: database.url } : { STORE: 'pglite', DATA_DIR: database.dataDir };
}
