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
  /** The package of the adapter the host imports (Hono's and node:http's are subpaths of the service). What it installs is its line in the docs (`readInstallLines`). */
  readonly adapter: string;
  /** The snippet's prefix, and its text with the prefix and with the service at the root. */
  readonly mount: { readonly prefixed: string; readonly root: string };
}

export const PREFIX = '/accounts';

export const HOSTS: readonly Host[] = [
  { name: 'koa', adapter: '@sl-accounts/http-koa', mount: { prefixed: "new Router().use('/accounts', ", root: 'new Router().use(' } },
  { name: 'express', adapter: '@sl-accounts/http-express', mount: { prefixed: "app.use('/accounts', ", root: 'app.use(' } },
  { name: 'fastify', adapter: '@sl-accounts/http-fastify', mount: { prefixed: ", { prefix: '/accounts' }", root: '' } },
  { name: 'hono', adapter: '@sl-accounts/service', mount: { prefixed: "route('/accounts', ", root: "route('/', " } },
  { name: 'node', adapter: '@sl-accounts/service', mount: { prefixed: ", basePath: '/accounts'", root: '' } },
];

/**
 * The hosts where web-standard `Request` and `Response` run (issue 35): each app installs what its
 * line in the docs says (the service, a store, the framework) and runs on its own runtime, from the tarballs.
 * `runs` are the store and the mount each black-box run uses; `files` are the snippets that make up
 * the app, by the path each is written to (the first one is the entry point, except for Next.js).
 */
export interface WebHost {
  readonly name: 'bun' | 'deno' | 'hono-bun' | 'next';
  readonly runtime: 'bun' | 'deno' | 'next';
  readonly files: Readonly<Record<string, string>>;
  readonly mount: { readonly prefixed: string; readonly root: string };
  readonly runs: readonly { readonly store: 'postgres' | 'memory'; readonly at: 'prefix' | 'root' }[];
  /** At most this many of our packages installed (the bound for a Next.js or Bun app). */
  readonly maxOwn?: number;
}

export const WEB_HOSTS: readonly WebHost[] = [
  { name: 'bun', runtime: 'bun', files: { 'app.ts': 'bun' }, mount: { prefixed: ", basePath: '/accounts'", root: '' }, runs: [{ store: 'postgres', at: 'prefix' }, { store: 'memory', at: 'root' }], maxOwn: 2 },
  { name: 'deno', runtime: 'deno', files: { 'app.ts': 'deno' }, mount: { prefixed: ", basePath: '/accounts'", root: '' }, runs: [{ store: 'postgres', at: 'prefix' }, { store: 'memory', at: 'root' }], maxOwn: 2 },
  { name: 'hono-bun', runtime: 'bun', files: { 'app.ts': 'hono-bun' }, mount: { prefixed: "route('/accounts', ", root: "route('/', " }, runs: [{ store: 'postgres', at: 'prefix' }], maxOwn: 2 },
  {
    name: 'next',
    runtime: 'next',
    files: { 'lib/accounts.ts': 'next-service', 'app/accounts/[[...path]]/route.ts': 'next', 'app/me/route.ts': 'next-guard', 'app/profile/page.tsx': 'next-page' },
    mount: { prefixed: '', root: '' },
    runs: [{ store: 'postgres', at: 'prefix' }],
    maxOwn: 2,
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

/** A host's install command as the docs print it: our tarballs (by package name) and the rest by name. */
export interface InstallLine {
  /** The line as printed (continuations joined, the comment dropped). */
  readonly text: string;
  /** Our packages, from `~/sl-tarballs/sl-accounts-{a,b}-1.0.0.tgz` and `…/sl-accounts-c-1.0.0.tgz`. */
  readonly tarballs: readonly string[];
  /** What it installs from the registry: the framework. */
  readonly names: readonly string[];
}

/**
 * Each `npm install` line of a code block after a `<!-- install: <host> -->` line, by host: the
 * install commands docs/embedding.md and the README print, which test:pack installs as they are
 * (test/docs/install-lines.test.ts holds each to the packages' dependencies).
 */
export function readInstallLines(file: string): Map<string, InstallLine> {
  const found = new Map<string, InstallLine>();
  for (const match of readFileSync(file, 'utf8').matchAll(/<!-- install: ([\w-]+) -->\n```sh\n([\s\S]*?)\n```/g)) {
    const command = match[2]!
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.replace(/\s#.*$/, '').trim())
      .find((line) => line.startsWith('npm install '));
    if (!command) throw new Error(`${file}: the block after <!-- install: ${match[1]} --> has no npm install line`);
    const tarballs: string[] = [];
    const names: string[] = [];
    for (const word of command.split(/\s+/).slice(2)) {
      const tarball = /sl-accounts-(?:\{([^}]+)\}|([\w-]+?))-\d+\.\d+\.\d+\.tgz$/.exec(word);
      if (tarball) tarballs.push(...(tarball[1] ?? tarball[2]!).split(',').map((name) => `@sl-accounts/${name.trim()}`));
      else if (!word.startsWith('-')) names.push(word);
    }
    found.set(match[1]!, { text: command, tarballs, names });
  }
  return found;
}

export const linesOf = (snippet: string) => snippet.split('\n').filter((line) => line.trim() !== '').length;
