// The stores: createPostgresStore on a Postgres server, createPGliteStore on embedded PGlite, both a
// PostgresStore; their options; what a host reads of them (pool use, the revocation feed's state).
export {
  createPGliteStore,
  createPostgresStore,
  type PGliteStoreOptions,
  type PoolStats,
  type PostgresStore,
  type PostgresStoreOptions,
} from './postgres-store.ts';
export type { RevocationFeedStatus } from './revocation-feed.ts';
// For a host's logs: whether an error means the database is unreachable, and its cause in words.
export { describeDatabaseError, isConnectionError } from './unavailable.ts';
// The statement bound's default and PGlite's memory settings (also at the light subpath ./settings).
export { DEFAULT_DB_TIMEOUT_MS, DEFAULT_PGLITE_SETTINGS, parsePGliteSettings } from './settings.ts';
