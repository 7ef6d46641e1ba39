/**
 * Test support for the Postgres adapter (`@sl-accounts/store-postgres/testing`), for this package's tests and
 * the service's: a real server that is never replaced by PGlite, fresh databases on it or in PGlite,
 * and the adapter opened on one with SQL access to its rows. Production code never imports it.
 */
import { CompiledQuery } from 'kysely';
import { createPostgresStore, openPGlite, openPostgres, type PostgresStore } from './postgres-store.ts';
import type { PGliteDatabase } from './testing/pglite.ts';
import { createServerDatabase, findPostgresServer, hostOf, POSTGRES_TEMPLATE_ENV, type ServerDatabase } from './testing/server.ts';

export { createPGliteDatabase, type PGliteDatabase } from './testing/pglite.ts';
export {
  createServerDatabase,
  findPostgresServer,
  LOCAL_URL,
  LOOKUP_ENV,
  shareLookup,
  postgresServer,
  withSql,
  type PostgresLookup,
  type PostgresServer,
  type ServerDatabase,
  type SqlClient,
} from './testing/server.ts';

/** A fresh database for one test: on the test server, or a PGlite directory. */
export type TestDatabase = ServerDatabase | PGliteDatabase;

/**
 * A fresh database on the test server; rejects, saying what to start, when there is none. Never
 * PGlite. Empty, as a new database is; `migrated` gives it every migration's schema, copied from the
 * run's template when its global setup made one (`createPostgresTemplate`), else migrated here.
 */
export async function createTestDatabase(options: { readonly migrated?: boolean } = {}): Promise<ServerDatabase> {
  const found = await findPostgresServer();
  if ('missing' in found) throw new Error(found.missing);
  const template = options.migrated ? process.env[POSTGRES_TEMPLATE_ENV] : undefined;
  const database = await createServerDatabase(found.server, template === undefined ? {} : { template });
  if (options.migrated && template === undefined) {
    const store = createPostgresStore({ connectionString: database.url });
    try {
      await store.migrate();
    } catch (error) {
      await database.drop();
      throw error;
    } finally {
      await store.close();
    }
  }
  return database;
}

/**
 * Where the tests' PostgreSQL server is (for titles), or why there is none: the shape
 * `testStore('postgres', locatePostgres)` of `@sl-accounts/store-contract` takes.
 */
export async function locatePostgres(): Promise<{ readonly where: string } | { readonly missing: string }> {
  const found = await findPostgresServer();
  if ('missing' in found) return found;
  const { source, url } = found.server;
  return { where: source === 'local' ? `local server ${hostOf(url)}` : `${source}, ${hostOf(url)}` };
}

/** The adapter on a test database, with SQL for what no port reads back. */
export interface PostgresTestStore extends PostgresStore {
  /** Runs one statement on the store's own connections (PGlite allows no other) and returns its rows. */
  query<Row>(sql: string, parameters?: readonly unknown[]): Promise<Row[]>;
}

/**
 * Opens the Postgres adapter on a test database (not migrated yet); `timeoutMs` as for a server's
 * pool, `pgliteSettings` as PGlite's `settings`.
 */
export function openTestStore(db: TestDatabase, options: { readonly timeoutMs?: number; readonly pgliteSettings?: Readonly<Record<string, string>> } = {}): PostgresTestStore {
  const { pgliteSettings, ...serverOptions } = options;
  const { store, db: kysely } =
    db.kind === 'server'
      ? openPostgres({ connectionString: db.url, poolSize: 10, ...serverOptions })
      : openPGlite({ dataDir: db.dataDir, ...(pgliteSettings ? { settings: pgliteSettings } : {}) });
  return {
    ...store,
    query: async <Row>(sql: string, parameters: readonly unknown[] = []) =>
      (await kysely.executeQuery(CompiledQuery.raw(sql, [...parameters]))).rows as Row[],
  };
}

/**
 * Opens and migrates the adapter on `db`, which it then owns: `close()` closes the store and drops
 * the database, also when migrating fails.
 */
export async function openMigratedTestStore(db: TestDatabase, options: { readonly timeoutMs?: number } = {}): Promise<PostgresTestStore> {
  const store = openTestStore(db, options);
  const close = async () => {
    try {
      await store.close();
    } finally {
      await db.drop();
    }
  };
  try {
    await store.migrate();
  } catch (error) {
    await close();
    throw error;
  }
  return { ...store, close };
}
