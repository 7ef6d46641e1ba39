/**
 * `pnpm db:migrate`: applies pending migrations to DATABASE_URL or, when it is unset (or
 * STORE=pglite), to the PGlite database in DATA_DIR (default ./.data). The server also migrates at
 * start-up; this is for deploy steps that migrate before the new version starts.
 */
import { parsePGliteSettings } from './pglite-settings.ts';
import { createPGliteStore, createPostgresStore } from './postgres-store.ts';
import { describeDatabaseError } from './unavailable.ts';

const { DATABASE_URL, DATA_DIR, STORE, PGLITE_SETTINGS } = process.env;
const dataDir = DATA_DIR || './.data';
const connectionString = STORE === 'pglite' ? undefined : DATABASE_URL || undefined;
const target = connectionString ? 'DATABASE_URL' : `PGlite in ${dataDir}`;
let settings: Record<string, string>;
try {
  // The server's settings: a database opened with other ones would tell a different story.
  settings = parsePGliteSettings(PGLITE_SETTINGS ?? '');
} catch (error) {
  console.error(`PGLITE_SETTINGS: ${(error as Error).message}`);
  process.exit(1);
}
const store = connectionString ? createPostgresStore({ connectionString, poolSize: 1 }) : createPGliteStore({ dataDir, settings });

try {
  const applied = await store.migrate();
  console.log(applied.length > 0 ? `Migrated ${target}: ${applied.join(', ')}` : `${target} is up to date`);
} catch (error) {
  console.error(`Migrating ${target} failed: ${describeDatabaseError(error)}`);
  process.exitCode = 1;
} finally {
  await store.close();
}
