/**
 * `pnpm start`: the service in a Koa 3 app (`run()` of koa.ts with nothing added: the file an operator
 * owns is this one with their middleware and routes), on the hardened node server, configured from
 * the environment. From issue 35 to issue 40 it served on node:http without Koa; the order names a
 * Koa server, and the Koa app costs what docs/performance.md says (docs/decisions/0050-koa-server.md).
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

/** Node's compile cache, where the runtime has one (Bun's too; Deno's node:module has none). */
const compileCache = typeof nodeModule.enableCompileCache === 'function' ? nodeModule : undefined;

if (import.meta.main) compileCache?.enableCompileCache(process.env.NODE_COMPILE_CACHE || fileURLToPath(new URL('../node_modules/.cache/node-compile-cache', import.meta.url)));

const { run } = await import('./koa.ts');

if (import.meta.main) {
  await run();
  // Written now, not only at exit: a process that is killed never exits cleanly.
  compileCache?.flushCompileCache();
}
