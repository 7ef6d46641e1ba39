/**
 * `pnpm test`: every suite, on every store and host, over real sockets. `pnpm test:unit`
 * (vitest.unit.config.ts) runs the part that needs none of what the tags below name.
 */
import { defineConfig } from 'vitest/config';

/**
 * What a case needs beyond the process it runs in. A tagged case runs in `pnpm test` only; the unit
 * run filters them out, and its guard (test/support/in-process-guard.ts) fails any untagged case
 * that reaches for one.
 */
export const TAGS = [
  { name: 'socket', description: 'listens or connects: a server of its own, raw connections, the metrics port' },
  { name: 'process', description: 'starts a process: pnpm start, node, a CLI' },
  { name: 'database', description: 'PostgreSQL or PGlite' },
  { name: 'real-cost', description: 'the production work factor or a production-sized input, which the unit run proves at a small size' },
  { name: 'compiler', description: 'type-checks code with the TypeScript compiler: seconds of CPU, the kind of work pnpm typecheck does' },
];

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/bench/**'],
    tags: TAGS,
    // Finds PostgreSQL once per run and reports a store it skips once (test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    // One module graph for the run instead of a fresh worker and imports per file, as in the unit
    // run: a third less CPU (146 and 159 s of user and system time, against 217 to 235 s in four
    // runs with isolation, on 2026-11-25). A file that changes module state puts it back (the
    // Postgres lookup's test resets the modules it imported afresh).
    isolate: false,
    // Both cores, as the unit run: vitest's default leaves one free, and most of this run waits on
    // sockets, processes and databases rather than computing. Measured on a fresh clone on
    // 2026-12-06 (load about 2): 533 s with one worker (22:04 UTC), 316 s with two (22:16 UTC), the
    // same 2,820 tests passing (and 298 s in a second two-worker run).
    maxWorkers: '100%',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
