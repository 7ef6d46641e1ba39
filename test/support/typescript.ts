/**
 * The TypeScript compiler, for the suites that parse or type-check sources. Loaded with `require`:
 * `typescript` is a 9 MB CommonJS file in a package without a `type` field, and `import` of such a
 * file makes Node read it for module syntax before it compiles it (`detectModuleFormat`), once in
 * each worker that imports it. In CPU profiles of the unit run's two workers that check cost about
 * 200 ms of each worker's 8.3 s, and a fresh `node` took 251-286 ms to import it against 174-224 ms
 * to require it (2026-12-07); `require` goes straight to the CommonJS loader.
 */
import { createRequire } from 'node:module';
import type TypeScript from 'typescript';

export const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;
