/**
 * The packaging test (`pnpm test:pack`, run by CI): the packages as a user outside this repository
 * gets them. It packs every package under packages/, checks what each tarball holds, installs them
 * with npm into a fresh project in the OS temp directory, imports every entry point with plain
 * `node`, copies the examples there, type-checks them with the strictest usual settings (no
 * skipLibCheck), runs an embedder's vitest file there (test/embedder/app.test.ts), and serves the
 * whole service from each example, checked over HTTP.
 *
 *   node test/pack/pack.ts            (KEEP=1 keeps the temp project and prints where it is)
 *
 * A script rather than a vitest file: packing and `npm install` take most of a minute on a quiet
 * 2-core machine, more than the unit and end-to-end suites should wait for.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const WORK = mkdtempSync(join(tmpdir(), 'sl-pack-'));
const TARBALLS = join(WORK, 'tarballs');
const APP = join(WORK, 'app');

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly exports?: Record<string, string | Record<string, string>>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly files?: readonly string[];
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const rootManifest = readJson<Manifest>(join(ROOT, 'package.json'));

function step(title: string): void {
  console.log(`\n== ${title}`);
}

function run(command: string, args: readonly string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed:\n${stdout}\n${stderr}`, { cause: error });
  }
}

/** The workspace directories under `parent` (packages, examples) that hold a package.json. */
function workspaceDirs(parent: string): string[] {
  const base = join(ROOT, parent);
  if (!existsSync(base)) return [];
  return readdirSync(base)
    .map((entry) => join(base, entry))
    .filter((dir) => existsSync(join(dir, 'package.json')));
}

const packages = workspaceDirs('packages').map((dir) => ({ dir, manifest: readJson<Manifest>(join(dir, 'package.json')) }));
const examples = workspaceDirs('examples').map((dir) => ({ dir, manifest: readJson<Manifest>(join(dir, 'package.json')) }));
const ownNames = new Set([...packages, ...examples].map((p) => p.manifest.name));

try {
  step(`pnpm pack of ${packages.length} packages into ${TARBALLS}`);
  run('pnpm', ['-r', '--filter', './packages/*', 'pack', '--pack-destination', TARBALLS], ROOT);
  const tarballs = readdirSync(TARBALLS).filter((f) => f.endsWith('.tgz'));
  assert.equal(tarballs.length, packages.length, `one tarball per package: ${tarballs.join(', ')}`);

  step('what each tarball holds');
  const shipped = new Map<string, Manifest>();
  for (const tarball of tarballs) {
    const file = join(TARBALLS, tarball);
    const entries = run('tar', ['-tzf', file], WORK).split('\n').filter(Boolean).map((e) => e.replace(/^package\//, ''));
    const manifest = JSON.parse(run('tar', ['-xzOf', file, 'package/package.json'], WORK)) as Manifest;
    shipped.set(manifest.name, manifest);
    const where = `${tarball}`;
    assert.ok(!manifest.private, `${where}: private`);
    for (const required of ['README.md', 'LICENSE', 'package.json']) assert.ok(entries.includes(required), `${where}: no ${required}`);
    const strays = entries.filter((e) => !['README.md', 'LICENSE', 'package.json', 'CHANGELOG.md'].includes(e) && !/^dist\/.*\.(js|js\.map|d\.ts)$/.test(e));
    assert.deepEqual(strays, [], `${where}: ships more than dist/, README, LICENSE`);
    assert.ok(!entries.some((e) => /(^|\/)(test|tests|__tests__)\/|\.test\./.test(e)), `${where}: ships tests`);
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
      for (const [dep, range] of Object.entries((manifest as unknown as Record<string, Record<string, string> | undefined>)[field] ?? {})) {
        assert.ok(!range.startsWith('workspace:'), `${where}: ${field}.${dep} is ${range}`);
        if (ownNames.has(dep)) assert.match(range, /^\^\d+\.\d+\.\d+$/, `${where}: ${dep} should be a caret range, is ${range}`);
      }
    }
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      assert.ok(typeof target === 'object', `${where}: exports["${subpath}"] has no conditions`);
      assert.deepEqual(Object.keys(target), ['types', 'default'], `${where}: exports["${subpath}"]`);
      for (const path of Object.values(target)) assert.ok(entries.includes(path.replace(/^\.\//, '')), `${where}: exports["${subpath}"] names ${path}, not in the tarball`);
    }
    // publint: the manifest against the files; attw: every entry point's types resolve as its
    // JavaScript does (ESM only, so the CommonJS resolutions are not asked for). Both offline.
    run('pnpm', ['exec', 'publint', 'run', file, '--strict'], ROOT);
    run('pnpm', ['exec', 'attw', '--profile', 'esm-only', '--no-definitely-typed', '--format', 'ascii', file], ROOT);
    console.log(`${manifest.name}: ${entries.length} files, exports ${Object.keys(manifest.exports ?? {}).join(' ')}; publint and attw clean`);
  }

  step('which packages bring Scalar');
  // "An embedder who wants no docs page installs no Scalar": @sl-accounts/docs-page alone depends on
  // it, so a package brings it only through docs-page (the server); the contract, the discovery
  // documents and the MCP endpoint never do.
  const dependencyClosure = (name: string, seen = new Set<string>()): Set<string> => {
    for (const dep of Object.keys({ ...shipped.get(name)?.dependencies, ...shipped.get(name)?.peerDependencies })) {
      if (!seen.has(dep)) dependencyClosure(dep, seen.add(dep));
    }
    return seen;
  };
  for (const name of shipped.keys()) {
    const closure = dependencyClosure(name);
    const viaDocsPage = name === '@sl-accounts/docs-page' || closure.has('@sl-accounts/docs-page');
    assert.equal([...closure].some((dep) => dep.startsWith('@scalar/')), viaDocsPage, `${name}: ${viaDocsPage ? 'brings no Scalar, though it has @sl-accounts/docs-page' : 'brings Scalar without @sl-accounts/docs-page'}`);
  }
  for (const name of ['@sl-accounts/http', '@sl-accounts/discovery', '@sl-accounts/mcp']) assert.ok(!dependencyClosure(name).has('@sl-accounts/docs-page'), `${name} depends on the docs page`);
  console.log(`Scalar comes only with ${[...shipped.keys()].filter((name) => name === '@sl-accounts/docs-page' || dependencyClosure(name).has('@sl-accounts/docs-page')).join(', ')}`);

  step(`npm install of the tarballs into a fresh project, ${APP}`);
  mkdirSync(APP);
  writeFileSync(join(APP, 'package.json'), `${JSON.stringify({ name: 'sl-pack-consumer', private: true, type: 'module' }, null, 2)}\n`);
  // What the examples need beyond this project's packages (their frameworks and those frameworks'
  // types), at the ranges they name; the tools at the workspace's versions.
  const wanted = new Map<string, string>();
  for (const { manifest } of examples) {
    for (const [dep, range] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) if (!ownNames.has(dep) && !range.startsWith('workspace:')) wanted.set(dep, range);
  }
  for (const tool of ['typescript', '@types/node', '@types/koa', 'vitest']) wanted.set(tool, rootManifest.devDependencies?.[tool] ?? 'latest');
  // @types/koa's declarations import `content-disposition` for its 0.5 types; with every example's
  // framework in one project, npm hoists the content-disposition 2 that Express 5 uses, whose own types
  // lack them (TS2694 in @types/koa under skipLibCheck: false). A Koa app alone never meets this; the
  // check below maps the name to the types @types/koa was written for.
  wanted.set('@types/content-disposition', '^0.5.9');
  const pinned = [...wanted].map(([dep, range]) => `${dep}@${range}`);
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs.map((t) => join(TARBALLS, t)), ...pinned], APP);

  step('plain node imports every entry point');
  for (const [name, manifest] of shipped) {
    for (const subpath of Object.keys(manifest.exports ?? { '.': '' })) {
      const specifier = subpath === '.' ? name : `${name}/${subpath.replace(/^\.\//, '')}`;
      const out = run(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(specifier)}); console.log(Object.keys(m).length)`], APP).trim();
      assert.ok(Number(out) > 0, `${specifier}: no exports`);
      const resolved = run(process.execPath, ['--input-type=module', '-e', `console.log(import.meta.resolve(${JSON.stringify(specifier)}))`], APP).trim();
      assert.match(resolved, /\/node_modules\/.*\/dist\/.*\.js$/, `${specifier} resolves to ${resolved}`);
      console.log(`${specifier}: ${out} exports from ${relative(APP, fileURLToPath(resolved))}`);
    }
  }

  step('the examples, copied into the project, type-check strictly (no skipLibCheck)');
  const copies: { readonly name: string; readonly entry: string }[] = [];
  for (const { dir, manifest } of examples) {
    const target = join(APP, 'examples', basename(dir));
    cpSync(dir, target, { recursive: true, filter: (src) => !src.includes('node_modules') && basename(src) !== 'package.json' });
    const exported = manifest.exports?.['.'];
    const entry = typeof exported === 'string' ? exported : (exported?.default ?? './server.ts');
    copies.push({ name: manifest.name, entry: join(target, entry) });
  }
  // Every package's declarations are checked too, not only what the examples import.
  const everything = [...shipped.entries()].flatMap(([name, m]) => Object.keys(m.exports ?? {}).map((s) => (s === '.' ? name : `${name}/${s.replace(/^\.\//, '')}`)));
  writeFileSync(join(APP, 'all-packages.ts'), everything.map((spec, i) => `export * as p${i} from '${spec}';`).join('\n') + '\n');
  writeFileSync(
    join(APP, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'es2023',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: false,
          types: ['node'],
          noEmit: true,
          allowImportingTsExtensions: true,
          verbatimModuleSyntax: true,
          paths: { 'content-disposition': ['./node_modules/@types/content-disposition'] },
        },
        include: ['all-packages.ts', 'examples'],
      },
      null,
      2,
    )}\n`,
  );
  run(process.execPath, [join(APP, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], APP);
  console.log(`tsc: 0 errors in ${copies.length} example(s) and the declarations of ${everything.length} entry points`);

  step('an embedder’s test (docs/testing.md), run with vitest from the installed packages');
  // test/embedder/app.test.ts as a user copies it: type-checked against the published declarations
  // (vitest's own are not ours to check), then run.
  mkdirSync(join(APP, 'test'));
  cpSync(join(ROOT, 'test/embedder/app.test.ts'), join(APP, 'test/app.test.ts'));
  const testConfig = { extends: './tsconfig.json', compilerOptions: { skipLibCheck: true }, include: ['test'] };
  writeFileSync(join(APP, 'tsconfig.test.json'), `${JSON.stringify(testConfig, null, 2)}\n`);
  run(process.execPath, [join(APP, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.test.json'], APP);
  const vitest = run(process.execPath, [join(APP, 'node_modules/vitest/vitest.mjs'), 'run', 'test/app.test.ts'], APP);
  console.log(stripVTControlCharacters(vitest).split('\n').filter((line) => /^\s*Tests\b/.test(line)).join('\n').trim());

  for (const { name, entry } of copies) {
    step(`${name}: node ${relative(APP, entry)}, served from the installed packages`);
    await serveAndCheck(entry);
  }
  console.log('\npacking test passed');
} finally {
  if (process.env.KEEP) console.log(`kept ${WORK}`);
  else rmSync(WORK, { recursive: true, force: true });
}

/** Starts `entry` with plain node (memory store), checks the service over HTTP, and stops it. */
async function serveAndCheck(entry: string): Promise<void> {
  const child = spawn(process.execPath, [entry], {
    cwd: APP,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', STORE: 'memory', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PBKDF2_ITERATIONS: '1000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening" line within 30 s:\n${output}`)), 30_000);
      child.once('exit', (code) => reject(new Error(`exited (code ${code}) before listening:\n${output}`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        output += `${line}\n`;
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'listening' && entry.url) {
            clearTimeout(timer);
            resolve(entry.url);
          }
        } catch {
          // not a log line
        }
      });
    });
    await checkService(url);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- server output ---\n${output}`, { cause: error });
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function checkService(base: string): Promise<void> {
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(new URL(path, base), init);
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    return { status: res.status, headers: res.headers, text, json: type.includes('json') && text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };
  const post = (path: string, body: unknown, cookie?: string) =>
    call(path, { method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
  const checks: [string, () => Promise<void>][] = [];
  const check = (title: string, fn: () => Promise<void>) => checks.push([title, fn]);

  const email = `pack.${Date.now()}@example.com`;
  let cookie = '';
  check('GET /api/health is 200 ok', async () => {
    const res = await call('/api/health');
    assert.equal(res.status, 200);
    assert.equal(res.json?.ok, true);
  });
  check('POST /api/signup is 201 and sets sl_session', async () => {
    const res = await post('/api/signup', { name: 'Ada Lovelace', email, password: 'analytical engine' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json?.ok, true);
    const set = res.headers.getSetCookie().find((c) => c.startsWith('sl_session='));
    assert.ok(set, 'no sl_session cookie');
    assert.match(set, /HttpOnly/);
  });
  check('a second signup with that address is 409', async () => {
    const res = await post('/api/signup', { name: 'Ada Lovelace', email, password: 'analytical engine' });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.json?.ok, false);
  });
  check('POST /api/login with a wrong password is 401', async () => {
    const res = await post('/api/login', { email, password: 'not the password' });
    assert.equal(res.status, 401, res.text);
  });
  check('POST /api/login is 200 and sets sl_session', async () => {
    const res = await post('/api/login', { email, password: 'analytical engine' });
    assert.equal(res.status, 200, res.text);
    cookie = (res.headers.getSetCookie().find((c) => c.startsWith('sl_session=')) ?? '').split(';')[0] ?? '';
    assert.ok(cookie.length > 'sl_session='.length, 'no session cookie');
  });
  check('GET /api/me with the cookie is 200 with the user', async () => {
    const res = await call('/api/me', { headers: { cookie } });
    assert.equal(res.status, 200, res.text);
    assert.equal((res.json?.user as { email?: string } | undefined)?.email, email);
  });
  check('GET /api/me without a cookie is 401', async () => {
    assert.equal((await call('/api/me')).status, 401);
  });
  check('POST /api/contact is accepted; bad input is a 400 ErrorResponse', async () => {
    const ok = await post('/api/contact', { name: 'Ada', email, message: 'Hello from the packaging test.' });
    assert.ok(ok.status === 200 || ok.status === 201, ok.text);
    const bad = await post('/api/contact', { name: 'Ada', email: 'not an address', message: 'x' });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.json?.ok, false);
    assert.equal(typeof bad.json?.error, 'string');
  });
  check('POST /api/logout ends the session', async () => {
    const res = await post('/api/logout', {}, cookie);
    assert.equal(res.status, 200, res.text);
    assert.equal((await call('/api/me', { headers: { cookie } })).status, 401);
  });
  check('GET /openapi.json is an OpenAPI 3.1 document', async () => {
    const res = await call('/openapi.json');
    assert.equal(res.status, 200);
    assert.match(String(res.json?.openapi), /^3\.1\./);
  });
  check('GET /docs/api, /auth.md and /.well-known/api-catalog answer 200', async () => {
    for (const path of ['/docs/api', '/auth.md', '/.well-known/api-catalog']) assert.equal((await call(path)).status, 200, path);
  });
  check('POST /mcp initialize answers with the server info (the SDK loads from the install)', async () => {
    const res = await call('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack', version: '1' } } }),
    });
    assert.equal(res.status, 200, res.text);
    assert.match(res.text, /"serverInfo"/);
  });
  check('an unknown path is a 404 ErrorResponse', async () => {
    const res = await call('/api/nothing-here');
    assert.equal(res.status, 404);
    assert.equal(res.json?.ok, false);
  });
  for (const [title, fn] of checks) {
    await fn();
    console.log(`ok  ${title}`);
  }
}
