/**
 * What a configuration reads of the Postgres store without loading it (no kysely, pg or PGlite), so
 * that a server configured for another store loads none of them:
 * `import { DEFAULT_DB_TIMEOUT_MS, parsePGliteSettings } from '@sl-accounts/store-postgres/settings'`.
 */

/** Default bound on each statement (see `PostgresStoreOptions.timeoutMs`). */
export const DEFAULT_DB_TIMEOUT_MS = 5_000;
export { DEFAULT_PGLITE_SETTINGS, parsePGliteSettings } from './pglite-settings.ts';
