/** The store on SQLite (node:sqlite through Kysely): one file in WAL mode, for one process. */
export { createSQLiteStore, SQLITE_FILE, type SQLiteStore, type SQLiteStoreOptions } from './sqlite-store.ts';
