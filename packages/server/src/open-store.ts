import { resolve } from 'node:path';
import type { Store } from '@sl-accounts/service/core';
import type { Logger } from '@sl-accounts/service/http';
import { createMemoryStore } from '@sl-accounts/store-memory';
import type { PoolStats, PostgresStore } from '@sl-accounts/store-postgres';
import type { StoreConfig } from './config.ts';

/** The store the configuration names, open; for a Postgres server also the use of its connection pool. */
export type ConfiguredStore = Store & { readonly poolStats?: () => PoolStats };

export interface OpenStoreOptions {
  /** The session cache's staleness bound, when the cache is on: the revocation feed confirms itself four times within it. */
  readonly sessionCacheStalenessMs?: number;
}

/** The one place that picks a store: opens it and, for the SQL stores, migrates it. */
export async function openStore(config: StoreConfig, logger: Logger, options: OpenStoreOptions = {}): Promise<ConfiguredStore> {
  if (config.kind === 'memory') return createMemoryStore({ rateLimitKeys: config.rateLimitKeys });
  if (config.kind === 'sqlite') {
    const { createSQLiteStore } = await import('@sl-accounts/store-sqlite');
    const store = createSQLiteStore({ path: config.path });
    try {
      const applied = await store.migrate();
      if (applied.length > 0) logger.info({ migrations: applied }, 'migrated the database');
      return store;
    } catch (error) {
      await store.close();
      throw new Error(`Could not open the database: ${(error as Error).message}`, { cause: error });
    }
  }
  // Loaded only when the configuration asks for it: a server on the memory store (an embedder's
  // test, an example) loads none of kysely, pg and PGlite.
  const { createPGliteStore, createPostgresStore, describeDatabaseError } = await import('@sl-accounts/store-postgres');
  let store: PostgresStore;
  switch (config.kind) {
    case 'pglite':
      store = createPGliteStore({ dataDir: config.dataDir, settings: config.settings });
      break;
    case 'postgres':
      store = createPostgresStore({
        connectionString: config.url,
        timeoutMs: config.timeoutMs,
        onError: (err) => logger.warn(briefly(err), 'idle database connection failed; the pool replaces it'),
        onRevocationFeedError: (err) => logger.warn(briefly(err), 'session revocation feed lost its connection; cached sessions are not used until it is back'),
        ...(options.sessionCacheStalenessMs === undefined ? {} : { revocationHeartbeatMs: Math.max(5, Math.floor(options.sessionCacheStalenessMs / 4)) }),
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

/**
 * An error's code and message only: pg's errors carry the client, whose fields include the server's
 * query-cancel key, and kilobytes of it per dropped connection.
 */
function briefly(err: Error): { readonly code: unknown; readonly message: string } {
  return { code: (err as { code?: unknown }).code, message: err.message };
}

/** Where the store keeps its data, for the start-up line: a directory, a file, or a server's host and database; never a credential. */
export function storeSummary(config: StoreConfig): { readonly store: StoreConfig['kind']; readonly dataDir?: string; readonly file?: string; readonly database?: string } {
  switch (config.kind) {
    case 'memory':
      return { store: 'memory' };
    case 'pglite':
      return { store: 'pglite', dataDir: config.dataDir.includes('://') ? config.dataDir : resolve(config.dataDir) };
    case 'sqlite':
      return { store: 'sqlite', file: resolve(config.path) };
    case 'postgres':
      return { store: 'postgres', database: databaseOf(config.url) };
  }
}

/** `host:port/name` of a connection string; its user and password are left out. */
function databaseOf(connectionString: string): string {
  const url = URL.parse(connectionString);
  if (!url) return 'DATABASE_URL'; // not parsable as a URL: it is not echoed, it may hold a password
  const host = url.host || url.searchParams.get('host') || 'localhost';
  const name = url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : '(default database)';
  return `${host}/${name}`;
}
