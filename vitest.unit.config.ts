/**
 * `pnpm test:unit`: the quick run, in seconds. The core, the memory store, the store contract on the
 * memory store, and the HTTP contract end to end in-process: under both hosts, each suite's fetch
 * calls are injected into the host's request listener, which hands them to `api.handle` (or /mcp to
 * the MCP endpoint), with no socket in between (TEST_IN_PROCESS, test/support/in-process.ts).
 *
 * Left to `pnpm test`, which runs all of these too, over real connections: what is about sockets,
 * processes or a browser (framing, request targets and Host headers that fetch cannot send,
 * connection limits, unread responses, stop signals, the metrics port, start-up, PGlite's footprint,
 * the /docs/api page in Chromium, the redocly CLI).
 * The test servers' sockets refuse every request with 421 here, so a case that bypasses fetch fails
 * rather than quietly using the network.
 */
import { defineConfig } from 'vitest/config';

const SOCKET_LEVEL = [
  'test/http/limits.test.ts',
  'test/http/metrics.test.ts',
  'test/http/start-up.test.ts',
  'test/http/startup-log.test.ts',
  'test/http/framing.test.ts',
  'test/http/slow-readers.test.ts',
  'test/http/stop-signals.test.ts',
  'test/http/pglite-footprint.test.ts',
  'test/discovery/api-docs.test.ts',
  'test/discovery/hosts.test.ts',
];

export default defineConfig({
  test: {
    include: [
      'packages/core/test/**/*.test.ts',
      'packages/http/test/**/*.test.ts',
      'packages/store-memory/test/**/*.test.ts',
      'packages/store-contract/test/**/*.test.ts',
      'packages/service/test/**/*.test.ts',
      'test/http/**/*.test.ts',
      'test/discovery/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', ...SOCKET_LEVEL],
    // Cases of included files that need a socket, a database or the redocly CLI.
    testNamePattern: /^(?!.*(framing and request targets|answers whatever the Host header|redocly lint|client faults on the|the Postgres pool))/,
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
