/**
 * Composition root: reads the configuration, picks a store, wires the core and serves it with Koa.
 * `pnpm start` runs this file; tests and benchmarks call `startServer` for the same wiring.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import {
  DEFAULT_PBKDF2_ITERATIONS,
  Pbkdf2PasswordHasher,
  createAccounts,
  randomTokens,
  startHousekeeping,
  systemClock,
  type Accounts,
  type AccountsOptions,
  type Clock,
  type Store,
} from '@sl/core';
import { createMemoryStore } from '@sl/store-memory';
import { createPGliteStore, createPostgresStore, describeDatabaseError, type PostgresStore } from '@sl/store-postgres';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { deprioritizeThreadPool } from './thread-priority.ts';
import { discoveryRoutes } from './discovery/index.ts';

export const SERVICE_NAME = 'sl-accounts';


export interface ServerOverrides {
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly rateLimits?: AccountsOptions['rateLimits'];
  /** How often expired sessions and limiter windows are swept; default one minute. */
  readonly sweepIntervalMs?: number;
}

export interface RunningServer {
  /** `http://host:port` the server listens on. */
  readonly url: string;
  readonly server: Server;
  readonly accounts: Accounts;
  readonly logger: Logger;
  /** Stops accepting, lets in-flight requests finish, then closes the store. */
  close(): Promise<void>;
}

async function openStore(config: Config, logger: Logger): Promise<Store> {
  let store: PostgresStore;
  switch (config.STORE) {
    case 'memory':
      return createMemoryStore();
    case 'pglite':
      store = createPGliteStore({ dataDir: config.DATA_DIR });
      break;
    case 'postgres':
      if (!config.DATABASE_URL) throw new Error('STORE=postgres needs DATABASE_URL');
      store = createPostgresStore({
        connectionString: config.DATABASE_URL,
        onError: (err) => logger.warn({ err }, 'idle database connection failed; the pool replaces it'),
      });
      break;
  }
  try {
    // Every start migrates; concurrent starts on one database wait for each other.
    const applied = await store.migrate();
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrated the database');
    return store;
  } catch (error) {
    await store.close();
    throw new Error(`Could not open the database: ${describeDatabaseError(error)}`, { cause: error });
  }
}

export async function startServer(config: Config, overrides: ServerOverrides = {}): Promise<RunningServer> {
  // Asynchronous writes coalesce log lines under load instead of one write(2) per request; pino
  // flushes them synchronously when the process exits.
  const logger =
    overrides.logger ?? pino({ level: config.LOG_LEVEL, base: { service: SERVICE_NAME } }, pino.destination({ dest: 1, sync: false }));
  if (config.PBKDF2_ITERATIONS < DEFAULT_PBKDF2_ITERATIONS) {
    logger.warn({ iterations: config.PBKDF2_ITERATIONS }, `PBKDF2_ITERATIONS is below the recommended ${DEFAULT_PBKDF2_ITERATIONS}`);
  }
  const niced = await deprioritizeThreadPool();
  logger.debug({ threads: niced }, 'thread pool runs below the event loop');
  const store = await openStore(config, logger);
  const accounts = createAccounts(
    { ...store, hasher: new Pbkdf2PasswordHasher({ iterations: config.PBKDF2_ITERATIONS }), clock: overrides.clock ?? systemClock, tokens: randomTokens },
    { serviceName: SERVICE_NAME, ...(overrides.rateLimits ? { rateLimits: overrides.rateLimits } : {}) },
  );
  const app = createApp({
    accounts,
    logger,
    trustProxy: config.TRUST_PROXY,
    extraRoutes: discoveryRoutes({ accounts, publicUrl: config.PUBLIC_URL, logger, serviceName: SERVICE_NAME }),
  });
  const server = createServer(app.callback());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.PORT, config.HOST, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  const housekeeping = startHousekeeping(() => accounts.sweep(), {
    intervalMs: overrides.sweepIntervalMs ?? 60_000,
    onError: (err) => logger.warn({ err }, 'sweep failed'),
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  logger.info({ url: `http://${host}:${port}`, store: config.STORE }, 'listening');

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    server,
    accounts,
    logger,
    close: () =>
      (closing ??= (async () => {
        const force = setTimeout(() => server.closeAllConnections(), 10_000).unref();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        clearTimeout(force);
        await housekeeping.stop();
        await store.close();
      })()),
  };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  const running = await startServer(config);
  const stop = (signal: string) => {
    running.logger.info({ signal }, 'shutting down');
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        running.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    console.error(`Failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
