/**
 * The published manifests of ADR 59: what each package.json of the workspace says is what `pnpm pack`
 * ships (no pnpmfile, no rewriting: `publishConfig.exports` in place of the source exports and
 * `workspace:` ranges resolved are pnpm's own). The service exports core, http, discovery, mcp,
 * mail-smtp, fetch, http-node and hono as its subpaths, compiled from those directories, and depends on
 * their third-party packages; the other packages depend on the service for them. (test:pack installs
 * the real tarballs.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
type Target = { source?: string; types: string; default: string };
type Manifest = Record<string, unknown> & { name: string; exports: Record<string, Target>; publishConfig: { exports: Record<string, Target> }; dependencies?: Record<string, string>; peerDependencies?: Record<string, string>; files?: string[] };
const manifestOf = (dir: string): Manifest => JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as Manifest;
/** The directories under packages/ that are packages (a package.json), and those that are the service's sources. */
const packageDirs = readdirSync(join(ROOT, 'packages')).filter((dir) => existsSync(join(ROOT, 'packages', dir, 'package.json')));
const SERVICE_SOURCES = { core: 'core', http: 'http', discovery: 'discovery', mcp: 'mcp', 'mail-smtp': 'mail-smtp', fetch: 'http-fetch', 'http-node': 'http-node', hono: 'http-hono' } as const;

it('nothing rewrites a manifest at pack time: no pnpmfile, no "carries"', () => {
  expect(existsSync(join(ROOT, '.pnpmfile.cjs'))).toBe(false);
  for (const dir of packageDirs) expect(manifestOf(dir), dir).not.toHaveProperty('carries');
  expect(readFileSync(join(ROOT, 'scripts/build-package.ts'), 'utf8')).not.toMatch(/writeFileSync/);
});

it('the workspace holds ten packages; the service’s sources are directories without a manifest', () => {
  expect(packageDirs.sort()).toEqual(['docs-page', 'http-express', 'http-fastify', 'http-koa', 'server', 'service', 'store-contract', 'store-memory', 'store-postgres', 'store-sqlite']);
  for (const dir of Object.values(SERVICE_SOURCES)) expect(existsSync(join(ROOT, 'packages', dir, 'src/index.ts')), dir).toBe(true);
});

it('the service exports their entry points under its subpaths and depends on no @sl-accounts package', () => {
  const service = manifestOf('service');
  const subpaths = ['.', './core', './core/testing', './discovery', './fetch', './http', './http/examples', './http/testing', './mail-smtp', './mcp', './http-node', './hono'].sort();
  expect(Object.keys(service.exports).sort()).toEqual(subpaths);
  expect(Object.keys(service.publishConfig.exports).sort()).toEqual(subpaths);
  expect(service.publishConfig.exports['./core/testing']).toEqual({ types: './dist/core/src/testing.d.ts', default: './dist/core/src/testing.js' });
  expect(service.publishConfig.exports['./mail-smtp']).toEqual({ types: './dist/mail-smtp/src/index.d.ts', default: './dist/mail-smtp/src/index.js' });
  // In the workspace each subpath is its sources; its types are where the published ones are.
  for (const [subpath, target] of Object.entries(service.exports)) {
    expect(target.types, subpath).toBe(service.publishConfig.exports[subpath]!.types);
    expect(existsSync(join(ROOT, 'packages/service', target.source!)), subpath).toBe(true);
  }
  expect(service.files).toEqual(['dist']);
  expect(Object.keys(service.dependencies ?? {}).filter((name) => name.startsWith('@sl-accounts/'))).toEqual([]);
  for (const dep of ['zod', 'ipaddr.js', 'lru-cache', 'fresh', 'negotiator', '@modelcontextprotocol/server', 'nodemailer']) expect(service.dependencies).toHaveProperty([dep]);
  // Hono only for `/hono`: an optional peer, so npm installs it into no Koa app (issue 40).
  expect(service.peerDependencies).toEqual({ hono: '^4.9.0' });
  expect((service as { peerDependenciesMeta?: unknown }).peerDependenciesMeta).toEqual({ hono: { optional: true } });
  expect(service).not.toHaveProperty('devDependencies');
});

it('the other packages name the service, never a subpath’s old package', () => {
  const removed = ['core', 'http', 'discovery', 'mcp', 'mail-smtp', 'http-fetch', 'http-node', 'http-hono'].map((name) => `@sl-accounts/${name}`);
  for (const dir of packageDirs) {
    const manifest = manifestOf(dir);
    for (const field of ['dependencies', 'peerDependencies', 'devDependencies'] as const) {
      for (const name of Object.keys((manifest[field] as Record<string, string> | undefined) ?? {})) expect(removed, `${dir} ${field}`).not.toContain(name);
    }
  }
  for (const store of ['store-memory', 'store-postgres', 'store-sqlite']) expect(manifestOf(store).dependencies).toHaveProperty(['@sl-accounts/service']);
});
