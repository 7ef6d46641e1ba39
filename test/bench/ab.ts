/**
 * A/B of two checkouts of the service in one interleaved run: `node test/bench/ab.ts <other-root> [rounds]`.
 * Each round loads `/api/health` (memory store) and `/api/me` with the session cache on (Postgres at
 * DATABASE_URL), on this checkout's `pnpm start` and the other's, alternately, so both meet the same
 * machine. Prints the medians and this checkout's ratio to the other: what "no worse than before"
 * means on a noisy 2-core machine, where a ratio to a floor swings 1.5x between runs. Create the
 * databases ab_this and ab_other on DATABASE_URL's server first.
 */
import { join } from 'node:path';
import { START_FLAGS, fmt, load, median, spawnServer, type Child } from './lib.ts';

const [other, roundsArg] = process.argv.slice(2);
if (!other) throw new Error('usage: node test/bench/ab.ts <other checkout> [rounds]');
const rounds = Number(roundsArg ?? 4);
// Each checkout on a database of its own (their migrations differ): DATABASE_URL's server, databases ab_this and ab_other.
const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const databaseOf = (side: string) => Object.assign(new URL(server), { pathname: `/ab_${side}` }).toString();
const checkouts = { this: '.', other };

async function start(root: string, env: Record<string, string>): Promise<Child> {
  return spawnServer(join(root, 'packages/server/src/main.ts'), { PBKDF2_ITERATIONS: '1000', TRUST_PROXY: '1', LOG_LEVEL: 'warn', ...env }, '/api/health', [...START_FLAGS]);
}

async function sessionOf(url: string, n: number): Promise<string> {
  const res = await fetch(`${url}/api/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${n}` },
    body: JSON.stringify({ name: 'Ada', email: `ab${n}.${Date.now()}@example.com`, password: 'long enough' }),
  });
  return /sl_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!;
}

const results: Record<string, Record<'this' | 'other', number[]>> = { health: { this: [], other: [] }, me: { this: [], other: [] } };
/** CPU microseconds of the server per request: steadier than req/s when other work shares the cores. */
const cpu: Record<string, Record<'this' | 'other', number[]>> = { health: { this: [], other: [] }, me: { this: [], other: [] } };
function record(name: 'health' | 'me', side: 'this' | 'other', run: { readonly rps: number; readonly cpuUs?: number }): void {
  results[name]![side].push(run.rps);
  if (run.cpuUs !== undefined) cpu[name]![side].push(run.cpuUs);
}
for (let round = 0; round < rounds; round++) {
  for (const side of (round % 2 === 0 ? ['this', 'other'] : ['other', 'this']) as ('this' | 'other')[]) {
    const root = checkouts[side];
    const memory = await start(root, { STORE: 'memory' });
    record('health', side, await load(`${memory.url}/api/health`, { connections: 50, duration: 4 }, memory.process.pid));
    await memory.stop();
    const pg = await start(root, { DATABASE_URL: databaseOf(side) });
    const cookie = `sl_session=${await sessionOf(pg.url, round)}`;
    record('me', side, await load(`${pg.url}/api/me`, { connections: 50, duration: 4, headers: { cookie } }, pg.process.pid));
    await pg.stop();
  }
}
for (const [name, r] of Object.entries(results)) {
  console.log(`${name}: this ${fmt(median(r.this))} req/s (${r.this.map((x) => fmt(x)).join(', ')}), other ${fmt(median(r.other))} req/s (${r.other.map((x) => fmt(x)).join(', ')}), ratio ${fmt(median(r.this) / median(r.other), 2)}`);
}
for (const [name, r] of Object.entries(cpu)) {
  if (r.this.length === 0 || r.other.length === 0) continue;
  console.log(`${name} CPU per request: this ${fmt(median(r.this))} µs, other ${fmt(median(r.other))} µs, ratio ${fmt(median(r.this) / median(r.other), 2)}`);
}
