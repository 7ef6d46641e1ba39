export { createPGliteStore, createPostgresStore, type PGliteStoreOptions, type PostgresStore, type PostgresStoreOptions } from './postgres-store.ts';
export { describeDatabaseError, isConnectionError } from './unavailable.ts';
