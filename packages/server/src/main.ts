/**
 * `pnpm start`: the service on node:http (`accounts(service)` of `@sl-accounts/http-node`, no
 * framework between), configured from the environment. It served through a Koa app of one
 * middleware until issue 35: Koa's context per request was a third of `/api/health`'s CPU and
 * answered nothing the contract does not (docs/decisions/0039-fetch-entry.md).
 *
 * Before anything else is imported, Node's compile cache is turned on: stripping the TypeScript of
 * the workspace and compiling it and the dependencies is most of a start (~40 % of it stripping
 * types), and with the cache a later start reads the results instead. The cache lives in this
 * package's `node_modules/.cache`, owned like the code it caches (a shared temporary directory would
 * let another user write code this process runs); where that is not writable, or when
 * NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE says otherwise, Node does as told or compiles as
 * before. So the rest is imported dynamically, after the cache is on. Deno's node:module has no
 * compile cache (a named import of it fails to link, and Deno stopped there): there it is skipped.
 */
import * as nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ListenerFactory } from './serve.ts';

/** Node's compile cache, where the runtime has one (Bun's too; Deno's node:module has none). */
const compileCache = typeof nodeModule.enableCompileCache === 'function' ? nodeModule : undefined;

if (import.meta.main) compileCache?.enableCompileCache(process.env.NODE_COMPILE_CACHE || fileURLToPath(new URL('../node_modules/.cache/node-compile-cache', import.meta.url)));

const { accounts } = await import('@sl-accounts/http-node');
const { runMain } = await import('./run.ts');

/** The node:http host: every request to the service, its own 404 included. */
export const nodeHost: ListenerFactory = (service) => accounts(service);

if (import.meta.main) {
  await runMain(nodeHost);
  // Written now, not only at exit: a process that is killed never exits cleanly.
  compileCache?.flushCompileCache();
}
