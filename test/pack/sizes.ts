/**
 * What an install weighs: the packages npm put in `node_modules` (from package-lock.json, nested
 * copies included), the megabytes they take on disk as `du` counts them, and how many of those
 * packages the service added beyond the host's framework (what the framework's own dependencies
 * reach is the framework's, shared ones included).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface InstallSize {
  readonly packages: number;
  /** Of them, ours (`@sl-accounts/*`). */
  readonly own: number;
  /** Packages outside the host framework's own dependency tree: what the service brings. */
  readonly added: number;
  readonly megabytes: number;
  /** Whether any `@scalar/*` package is installed (the docs page's 150 MB). */
  readonly scalar: boolean;
  /** Whether PGlite is installed (27 MB, only for the embedded store). */
  readonly pglite: boolean;
}

interface LockEntry {
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

export function installSize(project: string, frameworks: readonly string[]): InstallSize {
  const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const installed = Object.keys(lock.packages).filter((key) => key.includes('node_modules/'));
  const kilobytes = Number(execFileSync('du', ['-sk', join(project, 'node_modules')], { encoding: 'utf8' }).split('\t')[0]);
  const framework = closure(lock.packages, frameworks.map((name) => `node_modules/${name}`));
  return {
    packages: installed.length,
    own: installed.filter((key) => /(^|\/)node_modules\/@sl-accounts\//.test(key)).length,
    added: installed.filter((key) => !framework.has(key)).length,
    megabytes: Math.round((kilobytes / 1024) * 10) / 10,
    scalar: installed.some((key) => /node_modules\/@scalar\//.test(key)),
    pglite: existsSync(join(project, 'node_modules/@electric-sql/pglite')),
  };
}

/** Every lock entry `roots` reach through their dependencies, resolved as node resolves them (nearest node_modules up). */
function closure(packages: Readonly<Record<string, LockEntry>>, roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key) || !packages[key]) return;
    seen.add(key);
    const entry = packages[key];
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) {
      for (let dir = key; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
        const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
        if (packages[candidate]) {
          visit(candidate);
          break;
        }
        if (!dir) break;
      }
    }
  };
  for (const root of roots) visit(root);
  return seen;
}
