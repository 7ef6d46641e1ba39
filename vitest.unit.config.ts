/**
 * `pnpm test:unit`: the quick run, in seconds, with no socket, process, database or browser. The
 * core, the memory store, the store contract on the memory store, the packages' own tests, and the
 * HTTP suites (`test/http`, `test/discovery`) on one host: the contract itself, in-process. Each test
 * server is composed as `pnpm start` composes it, and the suites' fetch calls go to `api.handle`
 * through `request` of `@sl-accounts/http/testing` (test/support/in-process.ts).
 *
 * Left to `pnpm test`, which runs all of these too, on every store and host over real sockets: the
 * files below, which are about sockets, processes, the hosts or a browser, and the cases tagged in
 * vitest.config.ts. The guard (test/support/in-process-guard.ts) fails whatever listens, connects,
 * starts a process or opens PGlite here.
 */
import { defineConfig } from 'vitest/config';
import type { TestUserConfig } from 'vitest/node';
import { TAGS } from './vitest.config.ts';

const NEEDS_MORE_THAN_A_PROCESS = [
  // Sockets: framing, connection limits, unread responses, the metrics port, the request host.
  'test/http/framing.test.ts',
  'test/http/limits.test.ts',
  'test/http/metrics.test.ts',
  'test/http/slow-readers.test.ts',
  // The node:http path and service.fetch on two servers behind a recording proxy.
  'test/http/fetch-parity.test.ts',
  'test/discovery/hosts.test.ts',
  'packages/http-node/test/**',
  // Processes: start-up, its log, stop signals, log lines of `pnpm start`, PGlite's footprint.
  'test/http/start-up.test.ts',
  'test/http/startup-log.test.ts',
  'test/http/stop-signals.test.ts',
  'test/http/log-bounds.test.ts',
  'test/http/pglite-footprint.test.ts',
  // A real SMTP server; the examples' own frameworks; Chromium.
  'test/http/mail.test.ts',
  'test/http/inbox-bound.test.ts',
  'test/http/embedding.test.ts',
  'test/http/adapters.test.ts',
  // A process of its own (a route table with added operations); the real PBKDF2 cost the races need
  // (a hash slower than a store's round trip, or the window is never met).
  'test/discovery/route-table-derivation.test.ts',
  'test/http/credential-races.test.ts',
  'test/discovery/api-docs.test.ts',
  'test/discovery/docs-page-mounts.test.ts',
  'test/discovery/link-pages-chromium.test.ts',
  'test/discovery/passkeys-chromium.test.ts',
  'test/discovery/docs-page-axe-chromium.test.ts',
];

/** Every tagged case stays out. (A run option the config file takes too; vitest types it as the CLI's.) */
const untagged: Pick<TestUserConfig, 'tagsFilter'> = { tagsFilter: TAGS.map((tag) => `!${tag.name}`) };

export default defineConfig({
  test: {
    include: [
      'packages/core/test/**/*.test.ts',
      'packages/http/test/**/*.test.ts',
      'packages/store-memory/test/**/*.test.ts',
      'packages/store-contract/test/**/*.test.ts',
      'packages/http/test/**/*.test.ts',
      'packages/mcp/test/**/*.test.ts',
      'packages/service/test/**/*.test.ts',
      'packages/server/test/**/*.test.ts',
      'test/http/**/*.test.ts',
      'test/discovery/**/*.test.ts',
      'test/embedder/**/*.test.ts',
      'test/docs/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', ...NEEDS_MORE_THAN_A_PROCESS],
    tags: TAGS,
    ...untagged,
    setupFiles: ['test/support/in-process-setup.ts'],
    env: { TEST_STORES: 'memory', TEST_IN_PROCESS: '1' },
    // One module graph per worker instead of one per file: the suites keep no state in modules
    // beyond their servers, which they close, and this halves the run (imports were a third of it).
    isolate: false,
    // vitest's default leaves a core free (one worker on 2 cores); the run is CPU-bound, so use both.
    maxWorkers: '100%',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
