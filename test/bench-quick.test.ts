/**
 * `pnpm bench` in its quick mode (BENCH_QUICK=1: every section once, about a second of load each),
 * so that a section that breaks fails `pnpm test` instead of rotting until someone runs the whole
 * bench (issue 40: the memory-store section crashed unseen for weeks). Its figures are not held to
 * their targets here (a second's load on a shared machine measures nothing); only that every section
 * ran and measured something.
 */
// @module-tag process
// @module-tag socket
// @module-tag database
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { STORES } from './support/server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Figure {
  readonly name: string;
  readonly value: string;
  readonly ratio?: number;
}

/** Each section of the bench, by the figure names it reports; the first two need Postgres. */
const SECTIONS: readonly { readonly section: string; readonly postgres: boolean; readonly figures: readonly RegExp[] }[] = [
  { section: 'me', postgres: true, figures: [/^\/api\/me, cache on, Postgres, vs the node:http floor$/, /^\/api\/me, cache off .* vs the Koa floor$/, /^\/api\/me, cache on, Postgres, vs Koa 3 \+ @koa\/router serving the health JSON$/] },
  { section: 'revocation', postgres: true, figures: [/^revocation: logout on A/, /^revocation feed/] },
  { section: 'health', postgres: false, figures: [/^\/api\/health \(req\/s\)$/, /plain node:http, same JSON/] },
  { section: 'login', postgres: false, figures: [/^login at \d+ iterations/, /^\/api\/health p99 during a login storm/] },
  { section: 'memory', postgres: false, figures: [/^RSS growth after .* distinct IPs/] },
  { section: 'footprint', postgres: false, figures: [/^resident memory of pnpm start, sqlite/, /^start to the first 200 of pnpm start, memory/] },
  { section: 'embedded', postgres: false, figures: [/^signup on the embedded stores/, /^login on the embedded stores/, /^\/api\/me on the embedded stores/] },
  { section: 'reset', postgres: false, figures: [/^the same client's next request after a reset request/] },
];

const postgres = STORES.some((store) => store.kind === 'postgres' && store.skip === undefined);

describe('pnpm bench, quick mode', () => {
  it('runs every section to the end, each reporting measured figures', { timeout: 600_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sl-bench-quick-'));
    try {
      const results = join(dir, 'results.json');
      const child = spawn(process.execPath, ['test/bench/bench.ts'], {
        cwd: ROOT,
        // Without vitest's variables: the bench's helpers would take themselves to be inside a test run.
        // A new PGlite directory alone took over 30 s to start at load 24 (2026-12-06).
        env: { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST'))), BENCH_QUICK: '1', BENCH_RESULTS: results, BENCH_START_MS: '120000' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code, output).toBe(0);
      const { quick, figures } = JSON.parse(await readFile(results, 'utf8')) as { quick: boolean; figures: Figure[] };
      expect(quick).toBe(true);
      for (const { section, figures: expected } of SECTIONS.filter((s) => postgres || !s.postgres)) {
        for (const pattern of expected) {
          const figure = figures.find((f) => pattern.test(f.name));
          expect(figure, `${section}: no figure matching ${pattern}\n${output}`).toBeDefined();
          expect(figure!.value, `${section}: ${figure!.name}`).not.toMatch(/NaN/);
          // A ratio of 0 is a server that answered nothing in its second of load.
          if (figure!.ratio !== undefined) expect(figure!.ratio, `${section}: ${figure!.name}: ${figure!.value}`).toBeGreaterThan(0);
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
