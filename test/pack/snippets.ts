/**
 * The hosts' snippets of docs/embedding.md, as the packaging test runs them: each code block after a
 * `<!-- snippet: <host> -->` line, with only its port and (for the run at the root) its prefix
 * changed. Each replacement must find its text, so a snippet edited in the docs cannot silently stop
 * being the one that is tested.
 */
import { readFileSync } from 'node:fs';

export type HostName = 'koa' | 'express' | 'fastify' | 'hono' | 'node';

export interface Host {
  readonly name: HostName;
  /** The adapter package the host installs (node:http's is http-node, which every host has anyway). */
  readonly adapter: string;
  /** What the app installs beside the tarballs, by name (versions: the examples' ranges). */
  readonly framework: readonly string[];
  /** The snippet's prefix, and its text with the prefix and with the service at the root. */
  readonly mount: { readonly prefixed: string; readonly root: string };
}

export const PREFIX = '/accounts';

export const HOSTS: readonly Host[] = [
  { name: 'koa', adapter: '@sl-accounts/http-koa', framework: ['koa', '@koa/router'], mount: { prefixed: "new Router().use('/accounts', ", root: 'new Router().use(' } },
  { name: 'express', adapter: '@sl-accounts/http-express', framework: ['express'], mount: { prefixed: "app.use('/accounts', ", root: 'app.use(' } },
  { name: 'fastify', adapter: '@sl-accounts/http-fastify', framework: ['fastify'], mount: { prefixed: ", { prefix: '/accounts' }", root: '' } },
  { name: 'hono', adapter: '@sl-accounts/http-hono', framework: ['hono', '@hono/node-server'], mount: { prefixed: "route('/accounts', ", root: "route('/', " } },
  { name: 'node', adapter: '@sl-accounts/http-node', framework: [], mount: { prefixed: ", basePath: '/accounts'", root: '' } },
];

/**
 * The hosts where web-standard `Request` and `Response` run (issue 35): each app installs the
 * service and a store (and, for Hono, its adapter) and runs on its own runtime, from the tarballs.
 * `runs` are the store and the mount each black-box run uses; `files` are the snippets that make up
 * the app, by the path each is written to (the first one is the entry point, except for Next.js).
 */
export interface WebHost {
  readonly name: 'bun' | 'deno' | 'hono-bun' | 'next';
  readonly runtime: 'bun' | 'deno' | 'next';
  /** Our packages the app names (the rest come as their dependencies). */
  readonly packages: readonly string[];
  readonly framework: readonly string[];
  readonly files: Readonly<Record<string, string>>;
  readonly mount: { readonly prefixed: string; readonly root: string };
  readonly runs: readonly { readonly store: 'postgres' | 'memory'; readonly at: 'prefix' | 'root' }[];
  /** At most this many of our packages installed (the bound for a Next.js or Bun app). */
  readonly maxOwn?: number;
}

const SERVICE_AND_STORE = ['@sl-accounts/service', '@sl-accounts/store-postgres'];

export const WEB_HOSTS: readonly WebHost[] = [
  { name: 'bun', runtime: 'bun', packages: SERVICE_AND_STORE, framework: [], files: { 'app.ts': 'bun' }, mount: { prefixed: ", basePath: '/accounts'", root: '' }, runs: [{ store: 'postgres', at: 'prefix' }, { store: 'memory', at: 'root' }], maxOwn: 3 },
  { name: 'deno', runtime: 'deno', packages: SERVICE_AND_STORE, framework: [], files: { 'app.ts': 'deno' }, mount: { prefixed: ", basePath: '/accounts'", root: '' }, runs: [{ store: 'postgres', at: 'prefix' }, { store: 'memory', at: 'root' }], maxOwn: 3 },
  { name: 'hono-bun', runtime: 'bun', packages: [...SERVICE_AND_STORE, '@sl-accounts/http-hono'], framework: ['hono'], files: { 'app.ts': 'hono-bun' }, mount: { prefixed: "route('/accounts', ", root: "route('/', " }, runs: [{ store: 'postgres', at: 'prefix' }] },
  {
    name: 'next',
    runtime: 'next',
    packages: SERVICE_AND_STORE,
    framework: ['next', 'react', 'react-dom'],
    files: { 'lib/accounts.ts': 'next-service', 'app/accounts/[[...path]]/route.ts': 'next', 'app/me/route.ts': 'next-guard', 'app/profile/page.tsx': 'next-page' },
    mount: { prefixed: '', root: '' },
    runs: [{ store: 'postgres', at: 'prefix' }],
    maxOwn: 3,
  },
];

/** A web host's snippet as a run uses it: on `PORT`, under the prefix or at the root, on Postgres or in memory. */
export function runnableWeb(host: WebHost, name: string, snippet: string, run: WebHost['runs'][number]): string {
  const replace = (text: string, from: string, to: string) => {
    if (!text.includes(from)) throw new Error(`docs/embedding.md, snippet ${name}: no "${from}" to replace; update test/pack/snippets.ts with the snippet`);
    return text.replace(from, to);
  };
  let text = snippet;
  if (text.includes('3000')) text = replace(text, '3000', 'Number(process.env.PORT)');
  if (run.at === 'root') text = replace(text, host.mount.prefixed, host.mount.root);
  if (run.store === 'memory' && text.includes('createPostgresStore')) {
    text = replace(text, "import { createPostgresStore } from '@sl-accounts/store-postgres';", "import { createMemoryStore } from '@sl-accounts/store-memory';");
    text = replace(text, 'createPostgresStore({ connectionString: process.env.DATABASE_URL! })', 'createMemoryStore()');
  }
  return text;
}

/** At most this many lines of code (blank ones not counted) per host: the bound. */
export const MAX_SNIPPET_LINES = 10;

/** Each host's snippet, as docs/embedding.md has it. */
export function readSnippets(file: string): Map<string, string> {
  const text = readFileSync(file, 'utf8');
  const found = new Map<string, string>();
  for (const match of text.matchAll(/<!-- snippet: ([\w-]+) -->\n```tsx?\n([\s\S]*?)\n```/g)) found.set(match[1]!, `${match[2]!}\n`);
  return found;
}

/** The snippet as the test runs it: on `PORT`, under the prefix or at the root. */
export function runnable(host: Host, snippet: string, at: 'prefix' | 'root'): string {
  const replace = (text: string, from: string, to: string) => {
    if (!text.includes(from)) throw new Error(`docs/embedding.md, snippet ${host.name}: no "${from}" to replace; update test/pack/snippets.ts with the snippet`);
    return text.replace(from, to);
  };
  const onPort = replace(snippet, '3000', 'Number(process.env.PORT)');
  return at === 'prefix' ? onPort : replace(onPort, host.mount.prefixed, host.mount.root);
}

/** The tarballs docs/embedding.md tells every host to install (`sl-accounts-{core,http,…}-1.0.0.tgz`), by package name. */
export function documentedTarballs(file: string): string[] {
  const match = /sl-accounts-\{([^}]+)\}-1\.0\.0\.tgz/.exec(readFileSync(file, 'utf8'));
  if (!match) throw new Error('docs/embedding.md names no tarball set (sl-accounts-{…}-1.0.0.tgz)');
  return match[1]!.split(',').map((name) => `@sl-accounts/${name.trim()}`);
}

export const linesOf = (snippet: string) => snippet.split('\n').filter((line) => line.trim() !== '').length;
