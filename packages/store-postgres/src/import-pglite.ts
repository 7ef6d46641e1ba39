/**
 * PGlite, imported when a PGlite store first opens. It is an optional peer dependency (27 MB of
 * WebAssembly a store on a Postgres server never needs), so a project that did not install it gets
 * a message that says what to install instead of a bare module-not-found. The comments in the
 * imports tell a bundler (Next.js's Turbopack or webpack) to leave them to run time: an app bundled
 * without PGlite must still build.
 */
import type * as PGliteTypes from '@electric-sql/pglite';
import type * as NodeFSTypes from '@electric-sql/pglite/nodefs';

type PGliteModule = typeof PGliteTypes;
type NodeFSModule = typeof NodeFSTypes;

export async function importPGlite(): Promise<PGliteModule> {
  return imported(() => import(/* webpackIgnore: true */ /* turbopackIgnore: true */ '@electric-sql/pglite'));
}

export async function importPGliteNodeFS(): Promise<NodeFSModule> {
  return imported(() => import(/* webpackIgnore: true */ /* turbopackIgnore: true */ '@electric-sql/pglite/nodefs'));
}

async function imported<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String((error as Error).message).includes('@electric-sql/pglite')) throw error;
    throw new Error('The embedded PGlite store needs @electric-sql/pglite, an optional peer dependency of @sl-accounts/store-postgres: npm install @electric-sql/pglite', { cause: error });
  }
}
