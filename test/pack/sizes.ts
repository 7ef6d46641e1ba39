/**
 * What an install weighs: the packages npm put in `node_modules` (from package-lock.json, nested
 * copies included) and the megabytes they take on disk, as `du` counts them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface InstallSize {
  readonly packages: number;
  readonly megabytes: number;
  /** Whether any `@scalar/*` package is installed (the docs page's 150 MB). */
  readonly scalar: boolean;
  /** Whether PGlite is installed (27 MB, only for the embedded store). */
  readonly pglite: boolean;
}

export function installSize(project: string): InstallSize {
  const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  const installed = Object.keys(lock.packages).filter((key) => key.includes('node_modules/'));
  const kilobytes = Number(execFileSync('du', ['-sk', join(project, 'node_modules')], { encoding: 'utf8' }).split('\t')[0]);
  return {
    packages: installed.length,
    megabytes: Math.round((kilobytes / 1024) * 10) / 10,
    scalar: installed.some((key) => /node_modules\/@scalar\//.test(key)),
    pglite: existsSync(join(project, 'node_modules/@electric-sql/pglite')),
  };
}
