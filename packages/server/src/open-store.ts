import type { Store } from '@sl/core';
import { createMemoryStore } from '@sl/store-memory';
import { createPGliteStore, createPostgresStore, describeDatabaseError, type PostgresStore } from '@sl/store-postgres';
import type { Logger } from 'pino';
import type { StoreConfig } from './config.ts';

/** The one place that picks a store: opens it and, for the SQL stores, migrates it. */
export async function openStore(config: StoreConfig, logger: Logger): Promise<Store> {
  let store: PostgresStore;
  switch (config.kind) {
    case 'memory':
      return createMemoryStore();
    case 'pglite':
      store = createPGliteStore({ dataDir: config.dataDir });
      break;
    case 'postgres':
      store = createPostgresStore({
        connectionString: config.url,
        timeoutMs: config.timeoutMs,
        // The code and message only: the error carries the pg client, whose fields include the
        // server's query-cancel key, and kilobytes of it per dropped connection.
        onError: (err) => logger.warn({ code: (err as { code?: unknown }).code, message: err.message }, 'idle database connection failed; the pool replaces it'),
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
