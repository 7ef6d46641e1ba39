/**
 * Builds the workspace package in the current directory (as `pnpm build` and `prepack` run it) to
 * dist/: tsc with the package's tsconfig.build.json, after building the workspace packages it
 * imports, and the root LICENSE copied beside its README so that the tarball carries both.
 *
 *   node ../../scripts/build-package.ts          (from a package directory)
 *
 * A dependency is built only when its dist/ is missing (`pnpm -r pack` runs each package's own
 * prepack, dependencies first); the package's own dist/ is always rebuilt from scratch. It compiles
 * and copies the LICENSE, nothing more: the manifest `pnpm pack` ships is the package's own
 * package.json (its `publishConfig.exports`, `workspace:` ranges made `^1.0.0`), and what the
 * service's tarball holds beyond its src/ (core, http, ...: ADR 0059) its tsconfig.build.json names.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(ROOT, 'package.json'));
const TSC = require.resolve('typescript/bin/tsc');

interface Manifest {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly publishConfig?: { readonly exports?: Record<string, { readonly types: string; readonly default: string }> };
}

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** Workspace packages by name: every directory the workspace lists (packages/*, examples/*). */
function workspacePackages(): Map<string, string> {
  const found = new Map<string, string>();
  for (const parent of ['packages', 'examples']) {
    const base = join(ROOT, parent);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base)) {
      const dir = join(base, entry);
      if (existsSync(join(dir, 'package.json'))) found.set(readManifest(dir).name, dir);
    }
  }
  return found;
}

const WORKSPACE = workspacePackages();

function compile(dir: string): void {
  const config = join(dir, 'tsconfig.build.json');
  if (!existsSync(config)) throw new Error(`${dir}: no tsconfig.build.json (one line: { "extends": "../../tsconfig.build.json" })`);
  // Built aside and renamed into place, so that a pack running beside this one never compiles
  // against a half-written dist/.
  const fresh = join(dir, `dist.${process.pid}`);
  try {
    execFileSync(process.execPath, [TSC, '-p', config, '--outDir', fresh], { stdio: 'inherit', cwd: dir });
  } catch {
    rmSync(fresh, { recursive: true, force: true });
    console.error(`build of ${readManifest(dir).name} failed (tsc's errors above)`);
    process.exit(1);
  }
  const old = join(dir, `dist.old.${process.pid}`);
  if (existsSync(join(dir, 'dist'))) renameSync(join(dir, 'dist'), old);
  renameSync(fresh, join(dir, 'dist'));
  rmSync(old, { recursive: true, force: true });
  copyFileSync(join(ROOT, 'LICENSE'), join(dir, 'LICENSE'));
}

/** Builds the workspace packages `dir` imports whose dist/ is missing, depth first. */
function buildDependencies(dir: string, seen: Set<string>): void {
  const manifest = readManifest(dir);
  for (const name of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    const depDir = WORKSPACE.get(name);
    if (!depDir || seen.has(depDir)) continue;
    seen.add(depDir);
    buildDependencies(depDir, seen);
    if (!existsSync(join(depDir, 'dist'))) compile(depDir);
  }
}

// npm would pack the workspace manifest as it is: `workspace:` ranges and exports into src/.
const agent = process.env.npm_config_user_agent ?? '';
if (process.env.npm_lifecycle_event === 'prepack' && !agent.startsWith('pnpm/')) {
  console.error(`pack with pnpm (pnpm pack, or pnpm -r --filter './packages/*' pack): ${agent.split(' ')[0] || 'this tool'} would ship workspace: ranges and the source exports`);
  process.exit(1);
}

const here = process.cwd();
if (!existsSync(join(here, 'tsconfig.build.json'))) throw new Error(`run from a package directory: ${here} has no tsconfig.build.json`);
buildDependencies(here, new Set([here]));
compile(here);
