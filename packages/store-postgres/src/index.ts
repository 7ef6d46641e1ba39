export { createPGliteStore, createPostgresStore, type PGliteStoreOptions, type PoolStats, type PostgresStore, type PostgresStoreOptions } from './postgres-store.ts';
export { describeDatabaseError, isConnectionError } from './unavailable.ts';
export { DEFAULT_DB_TIMEOUT_MS, DEFAULT_PGLITE_SETTINGS, parsePGliteSettings } from './settings.ts';
