/**
 * The tags of both runs (vitest.config.ts, vitest.unit.config.ts), in a module of their own: the
 * unit run's config, and a test that reads it, load only `node:fs` for them.
 */
import { readFileSync } from 'node:fs';

/** The repository's root, where vitest's paths start. */
const ROOT = new URL('../../', import.meta.url);

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

/**
 * Whether a test file is tagged as a whole with one of TAGS: by its `@module-tag <name>` lines (the
 * pattern vitest matches), which tag every case in it.
 */
export const taggedAsWhole = (file: string): boolean =>
  [...readFileSync(new URL(file, ROOT), 'utf8').matchAll(/(?:\/\/|\*)\s*@module-tag\s+([\w\-/]+)\b/g)].some((match) => TAGS.some((tag) => tag.name === match[1]));
