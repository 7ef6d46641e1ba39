/**
 * Fresh embedded PGlite databases for tests, each in its own directory copied from a template.
 */
import { statfsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createPGliteStore } from '../postgres-store.ts';

/** A fresh PGlite data directory (see createPGliteDatabase). */
export interface PGliteDatabase {
  readonly kind: 'pglite';
  readonly dataDir: string;
  drop(): Promise<void>;
}

/**
 * RAM-backed where there is room (a PGlite directory is a thousand small files, 40 MB): /dev/shm
 * with at least 1 GiB free, which rules out Docker's 64 MB default; else the temp directory.
 */
const TEMP_ROOT = (() => {
  try {
    const { bavail, bsize } = statfsSync('/dev/shm');
    if (bavail * bsize >= 2 ** 30) return '/dev/shm';
  } catch {
    // no /dev/shm (macOS, Windows)
  }
  return tmpdir();
})();

let template: Promise<string> | undefined;

// Registered while the importing test file is collected, so it runs when that file is done. Only
// under vitest, and vitest is loaded only then: a script may import this module too.
if (process.env.VITEST) {
  const { afterAll } = await import('vitest');
  afterAll(async () => {
    if (template) await rm(await template, { recursive: true, force: true });
  });
}

/**
 * A fresh PGlite directory, copied from a template: `initdb` takes PGlite more than a second, a
 * copy a fraction of that. The template is built once per test file and left unmigrated, so every
 * database starts empty as on a server.
 */
export async function createPGliteDatabase(): Promise<PGliteDatabase> {
  template ??= (async () => {
    const dir = await mkdtemp(join(TEMP_ROOT, 'sl-pglite-template-'));
    const store = createPGliteStore({ dataDir: dir });
    try {
      await store.ping(); // runs initdb
    } finally {
      await store.close();
    }
    return dir;
  })();
  const source = await template;
  const dataDir = await mkdtemp(join(TEMP_ROOT, 'sl-pglite-'));
  await copyDir(source, dataDir);
  return { kind: 'pglite', dataDir, drop: () => rm(dataDir, { recursive: true, force: true }) };
}

/** Copies a directory tree with all file copies in flight at once: ten times faster than fs.cp here. */
async function copyDir(source: string, target: string): Promise<void> {
  const entries = await readdir(source, { recursive: true, withFileTypes: true });
  const path = (e: (typeof entries)[number]) => relative(source, join(e.parentPath, e.name));
  for (const dir of entries.filter((e) => e.isDirectory())) await mkdir(join(target, path(dir)), { recursive: true });
  await Promise.all(entries.filter((e) => e.isFile()).map((file) => copyFile(join(source, path(file)), join(target, path(file)))));
}
