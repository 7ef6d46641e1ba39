/**
 * The install lines the docs print are the sets the packages need (issue 40, row 3), without
 * packing: each host's `npm install` line of docs/embedding.md names exactly our packages that its
 * snippet imports and what those depend on once packed (the manifests as they are, with
 * `publishConfig.exports`: nothing else changes at pack time, ADR 59), and the third-party packages the snippet imports.
 * A line that misses one fails here, where npm would fail with a 404 (or an app at its import).
 * test:pack then installs each line as it is.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HOSTS, WEB_HOSTS, readInstallLines, readSnippets } from '../pack/snippets.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = join(ROOT, 'docs/embedding.md');

interface Manifest {
  readonly name: string;
  readonly exports?: Record<string, unknown>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
/** A manifest as `pnpm pack` publishes it: `publishConfig.exports` in place of the workspace's. */
const asPublished = (manifest: Manifest & { publishConfig?: { exports?: Record<string, unknown> } }): Manifest => ({ ...manifest, exports: manifest.publishConfig?.exports ?? manifest.exports });

/** Every package under packages/ by name, as `pnpm pack` publishes its manifest. */
const published = new Map(
  readdirSync(join(ROOT, 'packages'))
    .filter((dir) => existsSync(join(ROOT, 'packages', dir, 'package.json')))
    .map((dir) => {
      const manifest = asPublished(JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as Manifest);
      return [manifest.name, manifest] as const;
    }),
);

/** Our packages `names` need once installed: themselves and what they depend on (a required peer too), transitively. */
function closure(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name) || !published.has(name)) return;
    seen.add(name);
    const manifest = published.get(name)!;
    const peers = Object.keys(manifest.peerDependencies ?? {}).filter((peer) => !manifest.peerDependenciesMeta?.[peer]?.optional);
    for (const dep of [...Object.keys(manifest.dependencies ?? {}), ...peers]) visit(dep);
  };
  names.forEach(visit);
  return [...seen].sort();
}

/** The packages a snippet imports, by package name (`@sl-accounts/service/hono` is the service's), and the subpaths. */
function imports(code: string): { readonly packages: Set<string>; readonly specifiers: string[] } {
  const specifiers = [...code.matchAll(/\bfrom\s+'([^']+)'/g)].map((m) => m[1]!).filter((s) => !s.startsWith('.') && !s.startsWith('node:'));
  const packages = new Set(specifiers.map((s) => s.split('/').slice(0, s.startsWith('@') ? 2 : 1).join('/')));
  return { packages, specifiers };
}

const lines = readInstallLines(DOCS);
const snippets = readSnippets(DOCS);
const hosts = [...HOSTS.map((host) => ({ name: host.name, files: [host.name], maxOwn: undefined })), ...WEB_HOSTS.map((host) => ({ name: host.name, files: Object.values(host.files), maxOwn: host.maxOwn }))];

describe('docs/embedding.md’s install lines', () => {
  it('prints one for every host test:pack runs, and no other', () => {
    expect([...lines.keys()].sort()).toEqual(hosts.map((host) => host.name).sort());
  });

  it.each(hosts)('$name: names exactly what its snippet’s packages need, and the snippet’s framework', ({ name, files, maxOwn }) => {
    const line = lines.get(name)!;
    const code = files.map((file) => snippets.get(file) ?? '').join('\n');
    expect(code).not.toBe('');
    const { packages, specifiers } = imports(code);
    const ours = [...packages].filter((p) => p.startsWith('@sl-accounts/'));
    expect([...line.tarballs].sort(), `${line.text}`).toEqual(closure(ours));
    for (const other of [...packages].filter((p) => !p.startsWith('@sl-accounts/'))) expect(line.names, `${line.text} installs ${other}`).toContain(other);
    // Every subpath it imports is one the published package exports.
    for (const specifier of specifiers.filter((s) => s.startsWith('@sl-accounts/'))) {
      const [scope, pkg, ...rest] = specifier.split('/');
      const subpath = rest.length === 0 ? '.' : `./${rest.join('/')}`;
      expect(Object.keys(published.get(`${scope}/${pkg}`)?.exports ?? {}), specifier).toContain(subpath);
    }
    if (maxOwn !== undefined) expect(line.tarballs.length).toBeLessThanOrEqual(maxOwn);
  });
});
