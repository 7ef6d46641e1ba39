/**
 * `pnpm test:unit`: the quick run, in seconds, with no socket, process, database server or browser.
 * Every package's own tests (the core, the memory and SQLite stores with the store contract on each,
 * the HTTP package's testing entry, ...) and the HTTP suites (`test/http`, `test/discovery`) on one
 * host: the contract itself, in-process. Each test server is composed as `pnpm start` composes it,
 * and the suites' fetch calls go to `api.handle` through `request` of `@sl-accounts/service/http/testing`
 * (test/support/in-process.ts).
 *
 * Left to `pnpm test`, which runs all of these too, on every store and host over real sockets: what
 * is tagged with one of the tags of vitest.config.ts. A case carries its tag (`{ tags: ['socket'] }`);
 * a file all of whose cases need one says so once, with vitest's file tag (a `// @module-tag socket`
 * line), and is left out here without being loaded. The guard (test/support/in-process-guard.ts)
 * fails whatever listens, connects, starts a process or opens PGlite here untagged.
 */
import { accessSync, constants, globSync, statfsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import type { TestUserConfig } from 'vitest/node';
import { TAGS, taggedAsWhole } from './test/support/tags.ts';

/** Where the unit run looks: every package's own tests, and the suites that run on the in-process host. */
const SUITES = ['packages/*/test/**/*.test.ts', 'test/http/**/*.test.ts', 'test/discovery/**/*.test.ts', 'test/embedder/**/*.test.ts', 'test/docs/**/*.test.ts'];

/** The files tagged as a whole with one of TAGS: all their cases would be filtered out, so they are not even loaded. */
const taggedFiles = globSync(SUITES, { cwd: import.meta.dirname }).filter(taggedAsWhole);

/** Every tagged case stays out. (A run option the config file takes too; vitest types it as the CLI's.) */
const untagged: Pick<TestUserConfig, 'tagsFilter'> = { tagsFilter: TAGS.map((tag) => `!${tag.name}`) };

/**
 * Where the run's temporary files go (the SQLite stores' files, each a directory of its own): a
 * memory file system where the machine has one at /dev/shm, so a case's file costs no disk flush.
 * Measured on 2026-12-07 (05:20 UTC, 6 interleaved runs, load 2-3): medians 6.79 s wall and 12.4 s
 * of CPU against 7.26 and 13.0 s in the OS's temporary directory. `pnpm test` keeps that directory,
 * so the SQLite store still runs on a disk there, its contract included.
 */
const TMPFS_MAGIC = 0x01021994;
const memoryTmp = (() => {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return statfsSync('/dev/shm').type === TMPFS_MAGIC ? { TMPDIR: '/dev/shm' } : {};
  } catch {
    return {};
  }
})();

export default defineConfig({
  test: {
    include: SUITES,
    exclude: ['**/node_modules/**', ...taggedFiles],
    tags: TAGS,
    ...untagged,
    setupFiles: ['test/support/in-process-setup.ts'],
    // The stores that run in this process: memory and a SQLite file (PGlite and PostgreSQL are `pnpm test`'s).
    env: { TEST_STORES: 'memory,sqlite', TEST_IN_PROCESS: '1', ...memoryTmp },
    // One module graph per worker instead of one per file: the suites keep no state in modules
    // beyond their servers, which they close, and this halves the run (imports were a third of it).
    isolate: false,
    // vitest's default leaves a core free (one worker on 2 cores); the run is CPU-bound, so use both.
    maxWorkers: '100%',
    // Node loads the suites and what they import itself (its own type stripping; the code is
    // erasable TypeScript throughout), instead of Vite's module runner asking the main process for
    // each module: the workers waited 4 to 5 s of each run on those answers (CPU profiles of the
    // workers, 2026-12-07). No suite uses `vi.mock` or `import.meta.vitest`, so no loader hook either.
    // Node's compile cache is left off: vitest imports each test and setup file under a URL of its
    // own every run (`?vitest=<time>`), so the cache grew by ~600 entries a run that nothing read
    // again, and the run measured 7.2-7.6 s with it against 7.2-7.8 s without (2026-12-07 03:57 UTC).
    experimental: { viteModuleRunner: false, nodeLoader: false },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
