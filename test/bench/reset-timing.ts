/**
 * How long POST /api/password-reset takes for a registered address and for an unknown one, on a
 * Postgres server (DATABASE_URL, default the local one) or with STORE=memory|pglite: the two must
 * not be told apart by their time. Requests alternate between the two kinds, one at a time on one
 * keep-alive connection, each from a client address of its own (TRUST_PROXY=1), with a 20 ms pause
 * between them so the work a request leaves after its answer is done before the next one. The server
 * runs as a child process, as `pnpm start` does: a client in the server's own process would count
 * that after-answer work too (it reads the answer only when the event loop is free again).
 *
 *   node test/bench/reset-timing.ts [pairs=300]
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase } from '@sl-accounts/store-postgres/testing';
import { spawnServer } from '../support/server-process.ts';
import { RawClient } from './lib.ts';

const pairs = Number(process.argv[2] ?? 300);
const kind = process.env.STORE ?? 'postgres';
const database = kind === 'postgres' ? await createTestDatabase() : null;
const env = {
  LOG_LEVEL: 'info',
  TRUST_PROXY: '1',
  PUBLIC_URL: 'https://accounts.example.org',
  RESET_REQUESTS_PER_ADDRESS: '1000',
  PBKDF2_ITERATIONS: '1000',
  ...(process.env.MAIL_POLL_MS ? { MAIL_POLL_MS: process.env.MAIL_POLL_MS } : {}),
  ...(database ? { STORE: 'postgres', DATABASE_URL: database.url } : { STORE: kind, DATA_DIR: 'memory://' }),
};
const server = await spawnServer(env);
const client = new RawClient(server.url);
try {
  const signup = await client.request('POST', '/api/signup', { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.1' }, JSON.stringify({ name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' }));
  if (signup.status !== 201) throw new Error(`signup answered ${signup.status}`);
  const times: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
  let n = 0;
  for (let i = 0; i < pairs + 20; i++) {
    for (const which of i % 2 === 0 ? (['known', 'unknown'] as const) : (['unknown', 'known'] as const)) {
      const email = which === 'known' ? 'ada@example.com' : 'nobody@example.com';
      const ip = `10.${(++n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
      const start = performance.now();
      const res = await client.request('POST', '/api/password-reset', { 'content-type': 'application/json', 'x-forwarded-for': ip }, JSON.stringify({ email }));
      const ms = performance.now() - start;
      if (res.status !== 202) throw new Error(`${which} answered ${res.status}: ${res.body}`);
      if (i >= 20) times[which].push(ms); // the first 20 pairs warm up
      await sleep(20);
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const p90 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length * 0.9)]!;
  console.log(JSON.stringify({
    store: kind,
    pairs,
    knownMedianMs: +median(times.known).toFixed(3),
    unknownMedianMs: +median(times.unknown).toFixed(3),
    knownP90Ms: +p90(times.known).toFixed(3),
    unknownP90Ms: +p90(times.unknown).toFixed(3),
  }));
} finally {
  client.close();
  await server.stop();
  await database?.drop();
}
