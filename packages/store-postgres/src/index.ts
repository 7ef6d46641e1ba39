/**
 * The PostgreSQL store: every port of the core on a Postgres server (Kysely + pg) or on embedded
 * PGlite, with its migrations and revocation feed. Test databases are at `./testing`; the
 * configuration's defaults, without loading a driver, at `./settings`.
 */

// The stores and their options.
export {
  createPGliteStore,
  createPostgresStore,
  type PGliteStoreOptions,
  type PoolStats,
  type PostgresStore,
  type PostgresStoreOptions,
} from './postgres-store.ts';
export type {
  RevocationFeedStatus,
} from './revocation-feed.ts';

// For a host's logs.
export { describeDatabaseError, isConnectionError } from './unavailable.ts';

// The configuration's defaults (also at the light subpath `./settings`).
export { DEFAULT_DB_TIMEOUT_MS, DEFAULT_PGLITE_SETTINGS, parsePGliteSettings } from './settings.ts';
