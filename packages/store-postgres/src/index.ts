/**
 * The PostgreSQL store: every port of the core on a Postgres server (Kysely + pg) or on embedded
 * PGlite, with its migrations and revocation feed. Test databases are at `./testing`; the
 * configuration's defaults, without loading a driver, at `./settings`.
 */

// The stores and their options.
export {
  /** A store on embedded PGlite in a data directory (one process at a time: it is locked). */
  createPGliteStore,
  /** A store on a Postgres server; several processes may share its database. */
  createPostgresStore,
  /** `createPGliteStore`'s options: data directory and Postgres settings. */
  type PGliteStoreOptions,
  /** The connection pool's state, for a host's metrics. */
  type PoolStats,
  /** A Postgres or PGlite store: the ports, `migrate()`, `close()` and what a host reads of it. */
  type PostgresStore,
  /** `createPostgresStore`'s options: connection string, pool size, statement bound. */
  type PostgresStoreOptions,
} from './postgres-store.ts';
export type {
  /** The revocation feed's state: connections opened, whether a reconnect is scheduled, the next backoff. */
  RevocationFeedStatus,
} from './revocation-feed.ts';

// For a host's logs.
export {
  /** A database error's cause in words, without a secret. */
  describeDatabaseError,
  /** Whether an error means the database could not be reached. */
  isConnectionError,
} from './unavailable.ts';

// The configuration's defaults (also at the light subpath `./settings`).
export {
  /** The default bound on one statement, from asking for a connection to its answer (ms). */
  DEFAULT_DB_TIMEOUT_MS,
  /** PGlite's Postgres settings for a small machine. */
  DEFAULT_PGLITE_SETTINGS,
  /** Parses `PGLITE_SETTINGS` (`name=value` pairs separated by commas). */
  parsePGliteSettings,
} from './settings.ts';
