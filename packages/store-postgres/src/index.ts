export { createPGliteStore, createPostgresStore, type PGliteStoreOptions, type PostgresStore, type PostgresStoreOptions } from './postgres-store.ts';
export { describeDatabaseError } from './unavailable.ts';
