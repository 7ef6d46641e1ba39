/**
 * Whether a reset request tells a registered address from an unknown one by time: its own answer, and
 * the same client's next request, which on a store with one connection (PGlite) waits for whatever
 * the reset left running after its answer. On a Postgres server (DATABASE_URL, default the local one)
 * or with STORE=memory|pglite. Pairs alternate which kind goes first; each member is one reset
 * request and, at once, the next request (`GET /api/health`, which asks the store), one at a time on
 * one keep-alive connection, each pair member from a client address of its own (TRUST_PROXY=1), then
 * a 20 ms pause so the work one member leaves is done before the next. The server runs as a child
 * process, as `pnpm start` does (its flags too): a client in the server's own process would count the
 * after-answer work in the answer's time (it reads the answer only when the event loop is free again).
 * PGlite keeps its files in a fresh directory, as `pnpm start` does (`memory://` would skip the writes).
 *
 *   node test/bench/reset-timing.ts [pairs=600]
 *
 * `pnpm bench` runs it on PGlite and Postgres (part `reset`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase } from '@sl-accounts/store-postgres/testing';
import { spawnServer, START_FLAGS } from '../support/server-process.ts';
import { QUICK, RawClient } from './lib.ts';

export type ResetTimingStore = 'postgres' | 'pglite' | 'memory';

/** Times in ms, one per pair member. */
interface Times {
  /** The reset request's own answer. */
  readonly answer: number[];
  /** The same client's next request, sent as soon as the reset's answer arrived. */
  readonly next: number[];
}

export interface ResetTiming {
  readonly store: ResetTimingStore;
  readonly pairs: number;
  readonly known: Times;
  readonly unknown: Times;
}

const WARM_UP_PAIRS = QUICK ? 2 : 20;
/** How often one address may be asked an hour: the most RESET_REQUESTS_PER_ADDRESS takes (the configuration refuses more). */
const PER_ADDRESS = 50;

/** Runs `pairs` interleaved pairs (after a warm-up) against a fresh server on `store`. */
export async function resetTiming(store: ResetTimingStore, pairs: number): Promise<ResetTiming> {
  // Registered and unknown addresses each, taken in turn, enough that none is asked past its limit.
  const addresses = Math.ceil((pairs + WARM_UP_PAIRS) / PER_ADDRESS);
  if (addresses > 250) throw new RangeError(`at most ${250 * PER_ADDRESS - WARM_UP_PAIRS} pairs`);
  const database = store === 'postgres' ? await createTestDatabase() : null;
  const dataDir = store === 'pglite' ? await mkdtemp(join(tmpdir(), 'sl-reset-timing-')) : null;
  const env = {
    LOG_LEVEL: 'info',
    TRUST_PROXY: '1',
    PUBLIC_URL: 'https://accounts.example.org',
    RESET_REQUESTS_PER_ADDRESS: String(PER_ADDRESS),
    PBKDF2_ITERATIONS: '1000',
    ...(process.env.MAIL_POLL_MS ? { MAIL_POLL_MS: process.env.MAIL_POLL_MS } : {}),
    ...(database ? { STORE: 'postgres', DATABASE_URL: database.url } : { STORE: store, ...(dataDir ? { DATA_DIR: dataDir } : {}) }),
  };
  const server = await spawnServer(env, 'start', { nodeFlags: START_FLAGS });
  const client = new RawClient(server.url);
  try {
    for (let a = 0; a < addresses; a++) {
      const signup = await client.request('POST', '/api/signup', { 'content-type': 'application/json', 'x-forwarded-for': `192.0.2.${a + 1}` }, JSON.stringify({ name: 'Ada', email: `ada${a}@example.com`, password: 'correct horse battery' }));
      if (signup.status !== 201) throw new Error(`signup answered ${signup.status}`);
    }
    const known: Times = { answer: [], next: [] };
    const unknown: Times = { answer: [], next: [] };
    let n = 0;
    for (let i = 0; i < pairs + WARM_UP_PAIRS; i++) {
      for (const which of i % 2 === 0 ? (['known', 'unknown'] as const) : (['unknown', 'known'] as const)) {
        const email = which === 'known' ? `ada${i % addresses}@example.com` : `nobody${i % addresses}@example.com`;
        const ip = `10.${(++n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
        const start = performance.now();
        const res = await client.request('POST', '/api/password-reset', { 'content-type': 'application/json', 'x-forwarded-for': ip }, JSON.stringify({ email }));
        const answered = performance.now();
        const next = await client.request('GET', '/api/health', { 'x-forwarded-for': ip });
        const done = performance.now();
        if (res.status !== 202) throw new Error(`${which} answered ${res.status}: ${res.body}`);
        if (next.status !== 200) throw new Error(`the request after ${which} answered ${next.status}: ${next.body}`);
        if (i >= WARM_UP_PAIRS) {
          const times = which === 'known' ? known : unknown;
          times.answer.push(answered - start);
          times.next.push(done - answered);
        }
        await sleep(20);
      }
    }
    return { store, pairs, known, unknown };
  } finally {
    client.close();
    await server.stop();
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

const sorted = (xs: readonly number[]) => [...xs].sort((x, y) => x - y);
export const medianMs = (xs: readonly number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
export const p90Ms = (xs: readonly number[]) => sorted(xs)[Math.floor(xs.length * 0.9)]!;

/** In how many pairs the known address's member took longer than the unknown one's, as a share. */
export function slowerShare(known: readonly number[], unknown: readonly number[]): number {
  return known.filter((k, i) => k > unknown[i]!).length / known.length;
}

/** One line of figures, as the CLI prints them. */
export function summary(t: ResetTiming) {
  const r = (x: number) => +x.toFixed(3);
  return {
    store: t.store,
    pairs: t.pairs,
    answerMedianMs: { known: r(medianMs(t.known.answer)), unknown: r(medianMs(t.unknown.answer)) },
    answerP90Ms: { known: r(p90Ms(t.known.answer)), unknown: r(p90Ms(t.unknown.answer)) },
    nextMedianMs: { known: r(medianMs(t.known.next)), unknown: r(medianMs(t.unknown.next)) },
    nextP90Ms: { known: r(p90Ms(t.known.next)), unknown: r(p90Ms(t.unknown.next)) },
    nextRatio: r(medianMs(t.known.next) / medianMs(t.unknown.next)),
    nextKnownSlowerShare: r(slowerShare(t.known.next, t.unknown.next)),
  };
}

if (import.meta.main) {
  const pairs = Number(process.argv[2] ?? 600);
  const store = (process.env.STORE ?? 'postgres') as ResetTimingStore;
  console.log(JSON.stringify(summary(await resetTiming(store, pairs))));
}
