/**
 * The published manifests of ADR 40, as `.pnpmfile.cjs`'s beforePacking hook writes them for `pnpm
 * pack`: the service exports every carried package's entry points under its own subpaths and depends
 * on their third-party packages instead of on them; each carried package is a facade over those
 * subpaths that depends on the service alone; others are left as they are. (test:pack installs the
 * real tarballs.)
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
type Manifest = Record<string, unknown> & { name: string; exports: Record<string, { types: string; default: string }>; dependencies?: Record<string, string>; files?: string[] };
const { hooks } = createRequire(import.meta.url)(join(ROOT, '.pnpmfile.cjs')) as { hooks: { beforePacking: (manifest: Manifest) => Manifest } };
/** A workspace manifest as pnpm hands it to the hook: publishConfig's exports in place, workspace ranges resolved. */
const packed = (dir: string): Manifest => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as Manifest & { publishConfig: { exports: Manifest['exports'] } };
  const resolve = (deps?: Record<string, string>) => deps && Object.fromEntries(Object.entries(deps).map(([name, range]) => [name, range.startsWith('workspace:') ? '^1.0.0' : range]));
  return { ...manifest, exports: manifest.publishConfig.exports, dependencies: resolve(manifest.dependencies)!, devDependencies: resolve(manifest.devDependencies as Record<string, string>) };
};
const carries = (JSON.parse(readFileSync(join(ROOT, 'packages/service/package.json'), 'utf8')) as { carries: Record<string, string> }).carries;

it('the service carries core, http, discovery, mcp, mail-smtp, http-fetch, http-node and http-hono', () => {
  expect(carries).toEqual({ core: 'core', http: 'http', discovery: 'discovery', mcp: 'mcp', 'mail-smtp': 'mail-smtp', fetch: 'http-fetch', 'http-node': 'http-node', hono: 'http-hono' });
});

it('the service exports their entry points under its subpaths and depends on no @sl-accounts package', () => {
  const service = hooks.beforePacking(packed('service'));
  expect(Object.keys(service.exports).sort()).toEqual(['.', './core', './core/testing', './discovery', './fetch', './http', './http/examples', './http/testing', './mail-smtp', './mcp', './http-node', './hono'].sort());
  expect(service.exports['./core/testing']).toEqual({ types: './dist/core/testing.d.ts', default: './dist/core/testing.js' });
  expect(service.exports['./mail-smtp']).toEqual({ types: './dist/mail-smtp/index.d.ts', default: './dist/mail-smtp/index.js' });
  expect(Object.keys(service.dependencies ?? {}).filter((name) => name.startsWith('@sl-accounts/'))).toEqual([]);
  for (const dep of ['zod', 'ipaddr.js', 'lru-cache', 'fresh', 'negotiator', '@modelcontextprotocol/server', 'nodemailer']) expect(service.dependencies).toHaveProperty([dep]);
  // Hono only for `/hono`: an optional peer, so npm installs it into no Koa app (issue 40).
  expect((service as { peerDependencies?: Record<string, string> }).peerDependencies).toEqual({ hono: '^4.9.0' });
  expect((service as { peerDependenciesMeta?: unknown }).peerDependenciesMeta).toEqual({ hono: { optional: true } });
  expect(service).not.toHaveProperty('carries');
  expect(service).not.toHaveProperty('devDependencies');
});

it.each(Object.entries(carries))('%s: a facade over the service’s subpath, depending on the service alone', (short, dir) => {
  const facade = hooks.beforePacking(packed(dir));
  expect(facade.dependencies).toEqual({ '@sl-accounts/service': '^1.0.0' });
  expect(facade.files).toEqual(['dist/facade']);
  for (const target of Object.values(facade.exports)) {
    expect(target.default).toMatch(/^\.\/dist\/facade\/.+\.js$/);
    expect(target.types).toMatch(/^\.\/dist\/facade\/.+\.d\.ts$/);
  }
  expect(short).toBeTruthy();
});

it('other packages are packed as they are', () => {
  const store = packed('store-postgres');
  expect(hooks.beforePacking(store)).toBe(store);
});
