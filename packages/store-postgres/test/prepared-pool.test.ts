/**
 * The pool's own bookkeeping, on a stand-in for pg's Pool (no server): what one statement leaves
 * behind once it has run, and what `end()` does to a statement still waiting for a connection.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { StoreUnavailable } from '@sl-accounts/service/core';
import { preparingPool } from '../src/prepared-pool.ts';

/** A pg Pool whose connections answer every statement at once with no rows; `hold` keeps connect() and end() waiting. */
function standInPool(options: { hold?: boolean } = {}) {
  const client = { query: async () => ({ rows: [], rowCount: 0 }), release() {}, end: async () => {} };
  const pool = {
    options: {},
    connect: () => (options.hold ? new Promise(() => {}) : Promise.resolve(client)),
    // pg-pool's end() waits for the connections it still owes; held, it never finishes.
    end: () => (options.hold ? new Promise<void>(() => {}) : Promise.resolve()),
  };
  return pool as unknown as pg.Pool;
}

/** The heap in use after a full collection (V8's `gc`, made reachable for this process only). */
function heapAfterCollection(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('preparingPool', () => {
  it('keeps nothing of a statement once it has run', async () => {
    const pool = preparingPool(standInPool(), { statementTimeoutMs: 5_000, endTimeoutMs: 100 });
    for (let i = 0; i < 1_000; i++) await pool.rows('select $1::int', [i]); // warm up
    const before = heapAfterCollection();
    for (let i = 0; i < 20_000; i++) await pool.rows('select $1::int', [i]);
    const grown = heapAfterCollection() - before;
    // A reaction left on a promise that lives as long as the pool (~300 bytes each) would be ~6 MB here.
    expect(grown).toBeLessThan(1_000_000);
    await pool.end();
  });

  it('fails a statement still waiting for a connection when end() gives up waiting', async () => {
    const pool = preparingPool(standInPool({ hold: true }), { statementTimeoutMs: 5_000, endTimeoutMs: 20 });
    const waiting = pool.rows('select $1::int', [1]);
    const outcome = waiting.then(
      () => 'answered',
      (error: unknown) => error,
    );
    await pool.end();
    expect(await outcome).toBeInstanceOf(StoreUnavailable);
  });
});
