/**
 * Builds the workspace package in the current directory (as `pnpm build` and `prepack` run it) to
 * dist/: tsc with the package's tsconfig.build.json, after building the workspace packages it
 * imports, and the root LICENSE copied beside its README so that the tarball carries both.
 *
 *   node ../../scripts/build-package.ts          (from a package directory)
 *
 * A dependency is built only when its dist/ is missing (`pnpm -r pack` runs each package's own
 * prepack, dependencies first); the package's own dist/ is always rebuilt from scratch.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(ROOT, 'package.json'));
const TSC = require.resolve('typescript/bin/tsc');

interface Manifest {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly publishConfig?: { readonly exports?: Record<string, { readonly types: string; readonly default: string }> };
  /** The service's: the packages its tarball carries, by their subpath there (ADR 0040). */
  readonly carries?: Record<string, string>;
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

/** The newest modification time under `dir` (0 when it is missing). */
function newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  return Math.max(0, ...readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((entry) => statSync(join(dir, entry)).mtimeMs));
}

// The packages the service's tarball carries (ADR 0040): their builds are copied into its dist/<short>/,
// and each one's own tarball is a facade over those subpaths (.pnpmfile.cjs writes the manifests).
const SERVICE_DIR = join(ROOT, 'packages/service');
const CARRIED = new Map(Object.entries(readManifest(SERVICE_DIR).carries ?? {}).map(([short, dir]) => [readManifest(join(ROOT, 'packages', dir)).name, { short, dir: join(ROOT, 'packages', dir) }]));

/** Every `@sl-accounts/<carried>[/sub]` specifier in `dist` made relative to the file that holds it. */
function rewriteCarried(dist: string): void {
  const targets = new Map<string, string>();
  for (const [name, { short, dir }] of CARRIED) {
    for (const [subpath, target] of Object.entries(readManifest(dir).publishConfig?.exports ?? {})) {
      targets.set(subpath === '.' ? name : `${name}/${subpath.slice(2)}`, join(dist, short, target.default.replace(/^\.\/dist\//, '')));
    }
  }
  const pattern = /((?:\bfrom|\bimport)\s*\(?\s*)(['"])(@sl-accounts\/[\w-]+(?:\/[\w/-]+)?)\2/g;
  for (const entry of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
    if (!/\.(js|d\.ts)$/.test(entry)) continue;
    const file = join(dist, entry);
    const text = readFileSync(file, 'utf8');
    const rewritten = text.replace(pattern, (whole, lead: string, quote: string, specifier: string) => {
      const target = targets.get(specifier);
      if (!target) return whole;
      const path = relative(dirname(file), target).replaceAll('\\', '/');
      return `${lead}${quote}${path.startsWith('.') ? path : `./${path}`}${quote}`;
    });
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
}

/** A carried package's facade (what its own tarball ships): each entry point re-exports the service's subpath. */
function writeFacade(dir: string): void {
  const manifest = readManifest(dir);
  const carried = CARRIED.get(manifest.name);
  if (!carried) return;
  for (const [subpath, target] of Object.entries(manifest.publishConfig?.exports ?? {})) {
    const specifier = `@sl-accounts/service/${carried.short}${subpath === '.' ? '' : `/${subpath.slice(2)}`}`;
    for (const file of [target.default, target.types]) {
      const path = join(dir, 'dist/facade', file.replace(/^\.\/dist\//, ''));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `// ${manifest.name} is published as a facade: its code ships in @sl-accounts/service (ADR 0040).\nexport * from '${specifier}';\n`);
    }
  }
}

const here = process.cwd();
if (!existsSync(join(here, 'tsconfig.build.json'))) throw new Error(`run from a package directory: ${here} has no tsconfig.build.json`);
buildDependencies(here, new Set([here]));
compile(here);
writeFacade(here);
if (resolve(here) === SERVICE_DIR) {
  for (const { dir, short } of CARRIED.values()) {
    // A carried package built before its sources last changed is built again.
    if (newest(join(dir, 'dist')) < newest(join(dir, 'src'))) {
      compile(dir);
      writeFacade(dir);
    }
    cpSync(join(dir, 'dist'), join(here, 'dist', short), { recursive: true, filter: (src) => !src.startsWith(join(dir, 'dist/facade')) });
  }
  rewriteCarried(join(here, 'dist'));
}
