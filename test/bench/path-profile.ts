/**
 * Where a request's fixed cost goes: `node test/bench/path-profile.ts <start|node|fetch|koa> [path] [seconds]`
 * starts `pnpm start`'s wiring on the memory store under `node --cpu-prof` with the host named (`start`:
 * `pnpm start` itself; `node`: `accounts(service)` of `@sl-accounts/service/http-node`; `fetch`:
 * `service.fetch` on `@hono/node-server`; `koa`: `createApp` of `@sl-accounts/http-koa`), loads `path` (default `/api/health`; `/api/me` signs up
 * first, as a new address each run, and sends the session; with `PROFILE_DATABASE_URL` on that Postgres database) for `seconds` (default 10) over
 * `CONN` connections (default 16), and prints the server's CPU per request and the main thread's
 * heaviest functions by self time (TOP of them, default 30). The server logs at `LOG_LEVEL` (default
 * warn: no request lines). `PROFILE_DIR` keeps the .cpuprofile (default a temporary directory).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, START_FLAGS, cpuSeconds, fmt, load, spawnServer } from './lib.ts';

const [host = 'start', path = '/api/health', secondsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 10);
const dir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'path-profile-'));
const script = host === 'start' ? 'packages/server/src/main.ts' : 'test/bench/host-server.ts';
// PROFILE_DATABASE_URL: on that (migrated at start) Postgres database instead of the memory store.
const store: Record<string, string> = process.env.PROFILE_DATABASE_URL ? { DATABASE_URL: process.env.PROFILE_DATABASE_URL } : { STORE: 'memory' };
const svc = await spawnServer(script, { ...store, BENCH_HOST: host, TRUST_PROXY: '1', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', SESSION_CACHE_SIZE: process.env.SESSION_CACHE_SIZE ?? '0' }, '/api/health', [
  ...START_FLAGS,
  '--cpu-prof',
  `--cpu-prof-dir=${dir}`,
]);
const headers: Record<string, string> = {};
if (path === '/api/me') {
  const res = await fetch(`${svc.url}/api/signup`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.255.0.1' }, body: JSON.stringify({ name: 'Profile', email: `profile-${Date.now()}@example.com`, password: 'profile password' }) });
  headers.cookie = `sl_session=${/sl_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]}`;
}
const connections = Number(process.env.CONN ?? 16);
await load(`${svc.url}${path}`, { connections, duration: 2, headers });
const before = cpuSeconds(svc.process.pid!)!;
const result = await load(`${svc.url}${path}`, { connections, duration: seconds, headers });
const cpu = cpuSeconds(svc.process.pid!)! - before;
await svc.stop();
console.log(`${host} ${path}: ${fmt(result.rps)} req/s (${result.non2xx} not 2xx), ${fmt((cpu / result.total) * 1e6, 1)} µs of the server's CPU per request`);
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile in ${dir}`);
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: Node[]; startTime: number; endTime: number; samples: number[] };
const total = profile.samples.length;
const self = new Map<string, number>();
for (const node of profile.nodes) {
  const where = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(`file://${ROOT}`, '')}:${node.callFrame.lineNumber + 1}`;
  self.set(where, (self.get(where) ?? 0) + node.hitCount);
}
const idle = [...self].filter(([k]) => k.startsWith('(idle)')).reduce((s, [, v]) => s + v, 0);
console.log(`main thread busy ${fmt((100 * (total - idle)) / total, 1)} % of ${fmt((profile.endTime - profile.startTime) / 1e6, 1)} s; profile: ${join(dir, file)}`);
for (const [where, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 30))) console.log(`${fmt((100 * hits) / (total - idle), 1).padStart(5)} %  ${where}`);
