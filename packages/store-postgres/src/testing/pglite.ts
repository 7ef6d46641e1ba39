/**
 * Fresh embedded PGlite databases for tests, each in its own directory copied from a template.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PGLITE_TEMPLATE_ENV, TEMP_ROOT, buildPGliteTemplate, copyDir } from './pglite-templates.ts';

/** A fresh PGlite data directory (see createPGliteDatabase). */
export interface PGliteDatabase {
  readonly kind: 'pglite';
  readonly dataDir: string;
  drop(): Promise<void>;
}

let templates: { empty?: Promise<string>; migrated?: Promise<string> } = {};

// Registered while the importing test file is collected, so it runs when that file is done. Only
// under vitest, and vitest is loaded only then: a script may import this module too.
if (process.env.VITEST) {
  const { afterAll } = await import('vitest');
  afterAll(async () => {
    const own = Object.values(templates);
    templates = {};
    for (const dir of own) await rm(await dir, { recursive: true, force: true });
  });
}

/**
 * A fresh PGlite directory, copied from a template: `initdb` takes PGlite seconds, migrating it a
 * second more, a copy a fraction of that. The template is the run's own when its global setup made
 * them (`createPGliteTemplates`), else one built once per test file. By default the database is
 * empty, as a new one on a server; `migrated` gives it the schema of every migration, as
 * `migrate()` would (which then applies nothing).
 */
export async function createPGliteDatabase(options: { readonly migrated?: boolean } = {}): Promise<PGliteDatabase> {
  const kind = options.migrated ? 'migrated' : 'empty';
  const shared = process.env[PGLITE_TEMPLATE_ENV[kind]];
  const source = shared ?? (await (templates[kind] ??= buildPGliteTemplate(kind === 'migrated')));
  const dataDir = await mkdtemp(join(TEMP_ROOT, 'sl-pglite-'));
  await copyDir(source, dataDir);
  return { kind: 'pglite', dataDir, drop: () => rm(dataDir, { recursive: true, force: true }) };
}
