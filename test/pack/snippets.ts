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

/** At most this many lines of code (blank ones not counted) per host: the bound. */
export const MAX_SNIPPET_LINES = 10;

/** Each host's snippet, as docs/embedding.md has it. */
export function readSnippets(file: string): Map<HostName, string> {
  const text = readFileSync(file, 'utf8');
  const found = new Map<HostName, string>();
  for (const match of text.matchAll(/<!-- snippet: (\w+) -->\n```ts\n([\s\S]*?)\n```/g)) found.set(match[1] as HostName, `${match[2]!}\n`);
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
