export { DEFAULT_DB_TIMEOUT_MS, createPGliteStore, createPostgresStore, type PGliteStoreOptions, type PoolStats, type PostgresStore, type PostgresStoreOptions } from './postgres-store.ts';
export { describeDatabaseError, isConnectionError } from './unavailable.ts';
export { DEFAULT_PGLITE_SETTINGS, parsePGliteSettings } from './pglite-settings.ts';
