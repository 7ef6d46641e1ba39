/**
 * `pnpm test`: every suite, on every store and host, over real sockets. `pnpm test:unit`
 * (vitest.unit.config.ts) runs the part that needs none of what the tags name (test/support/tags.ts).
 */
import { defineConfig } from 'vitest/config';
import { TaggedFilesFirst } from './test/support/sequencer.ts';
import { TAGS } from './test/support/tags.ts';

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
    sequence: { sequencer: TaggedFilesFirst },
    // Both cores, as the unit run: vitest's default leaves one free, and most of this run waits on
    // sockets, processes and databases rather than computing. Measured on a fresh clone on
    // 2026-12-06 (load about 2): 533 s with one worker (22:04 UTC), 316 s with two (22:16 UTC), the
    // same 2,820 tests passing (and 298 s in a second two-worker run).
    maxWorkers: '100%',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
