/**
 * A/B of two checkouts' log destinations, in one interleaved run:
 *
 *   node test/bench/log-ab.ts <checkout a> <checkout b> [rounds]
 *
 * Each round starts each checkout's `pnpm start` (memory store, LOG_LEVEL=info, JSON) with its
 * standard output a file, as under a journal or a log file, and loads `/api/health` alone, then
 * `/api/health` during a login storm (every login hashed, each from another client: the thread pool
 * busy). Prints each part's medians, b/a, and how many request lines were answered but not yet
 * written when the storm ended (held in memory, waiting for the destination). docs/performance.md
 * ("The node host and the composition root") has a run's figures.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { START_FLAGS, fmt, freePort, ipFor, median } from './lib.ts';

const [a, b, roundsArg] = process.argv.slice(2);
if (!a || !b) throw new Error('usage: node test/bench/log-ab.ts <checkout a> <checkout b> [rounds]');
const rounds = Number(roundsArg ?? 4);
const checkouts = { a, b };
const SECONDS = 4;

async function start(root: string, log: string) {
  const port = await freePort();
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, [...START_FLAGS, join(root, 'packages/server/src/main.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', LOG_FORMAT: 'json', TRUST_PROXY: '1', STORE: 'memory', PBKDF2_ITERATIONS: '100000', LOGIN_FAILURES_PER_ACCOUNT: '1000000' },
    stdio: ['ignore', fd, 'inherit'],
  });
  closeSync(fd);
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      await (await fetch(`${url}/api/health`)).arrayBuffer();
      break;
    } catch (error) {
      if (tries > 300) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { url, stop: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))) };
}

const requestLines = (log: string) => readFileSync(log, 'utf8').split('\n').filter((line) => line.includes('"msg":"request"')).length;
type Side = 'a' | 'b';
const results: Record<string, Record<Side, number[]>> = { health: { a: [], b: [] }, 'health in a login storm': { a: [], b: [] }, 'logins in the storm': { a: [], b: [] }, 'lines not yet written at the storm end': { a: [], b: [] } };
let client = 0;
for (let round = 0; round < rounds; round++) {
  for (const side of (round % 2 === 0 ? ['a', 'b'] : ['b', 'a']) as Side[]) {
    const log = join(tmpdir(), `log-ab-${process.pid}-${side}.ndjson`);
    const server = await start(checkouts[side], log);
    const health = await autocannon({ url: `${server.url}/api/health`, connections: 50, duration: SECONDS });
    results.health![side].push(health.requests.total / health.duration);
    await fetch(`${server.url}/api/signup`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.1' }, body: JSON.stringify({ name: 'Ada', email: 'ab@example.com', password: 'long enough' }) });
    const login = { method: 'POST' as const, path: '/api/login', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ab@example.com', password: 'long enough' }) };
    const [probe, storm] = await Promise.all([
      autocannon({ url: `${server.url}/api/health`, connections: 20, duration: SECONDS }),
      autocannon({ url: server.url, connections: 8, duration: SECONDS, requests: [{ ...login, setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': ipFor(++client) } }) }] }),
    ]);
    const answered = health.requests.total + probe.requests.total + storm.requests.total;
    results['lines not yet written at the storm end']![side].push(Math.max(0, answered - requestLines(log)));
    results['health in a login storm']![side].push(probe.requests.total / probe.duration);
    results['logins in the storm']![side].push(storm.requests.total / storm.duration);
    await server.stop();
    const written = requestLines(log);
    console.log(`round ${round} ${side}: ${results.health![side].at(-1)!.toFixed(0)} health/s; in the storm ${(probe.requests.total / probe.duration).toFixed(0)} health/s, ${(storm.requests.total / storm.duration).toFixed(1)} logins/s; ${written >= answered ? 'every request line written by the exit' : `${answered - written} request lines lost`}`);
    rmSync(log, { force: true });
  }
}
for (const [name, r] of Object.entries(results)) {
  console.log(`${name}: a ${fmt(median(r.a), 1)} (${r.a.map((x) => fmt(x)).join(', ')}), b ${fmt(median(r.b), 1)} (${r.b.map((x) => fmt(x)).join(', ')}), b/a ${median(r.a) ? fmt(median(r.b) / median(r.a), 2) : '-'}`);
}
