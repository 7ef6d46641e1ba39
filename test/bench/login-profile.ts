/**
 * Where a login's CPU goes beyond its hash: `node test/bench/login-profile.ts [seconds]` starts
 * `pnpm start`'s server on Postgres (DATABASE_URL's server, a fresh database) under `node
 * --cpu-prof`, loads /api/login for `seconds` (default 20) with four connections per core at the
 * production work factor, stops it, and prints the server's CPU per login beside the machine's
 * PBKDF2 rate, where the CPU went (the server's main thread, its libuv pool that hashes, its other
 * threads, and the Postgres backends serving it), and the main thread's heaviest functions by self
 * time from the profile (`PROFILE_DIR` keeps the .cpuprofile; default a temporary directory).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT, START_FLAGS, cpuSeconds, fmt, ipFor, load, spawnServer } from './lib.ts';

const seconds = Number(process.argv[2] ?? 20);
const iterations = Number(process.env.PBKDF2_ITERATIONS ?? 600_000);
const dir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'login-profile-'));
const admin = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `sl_profile_${process.pid}`;
const client = new pg.Client({ connectionString: admin });
await client.connect();
await client.query(`create database ${name}`);
const url = Object.assign(new URL(admin), { pathname: `/${name}` }).toString();
try {
  const svc = await spawnServer(
    'packages/server/src/main.ts',
    { DATABASE_URL: url, TRUST_PROXY: '1', LOGIN_FAILURES_PER_ACCOUNT: '1000000', PBKDF2_ITERATIONS: String(iterations), LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' },
    '/api/health',
    [...START_FLAGS, '--cpu-prof', `--cpu-prof-dir=${dir}`],
  );
  const body = JSON.stringify({ email: 'profile@example.com', password: 'profile password' });
  await fetch(`${svc.url}/api/signup`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.255.0.1' }, body: JSON.stringify({ name: 'Profile', email: 'profile@example.com', password: 'profile password' }) });
  let n = 0;
  const run = (duration: number) =>
    load(svc.url, {
      connections: 4 * availableParallelism(),
      duration,
      requests: [{ method: 'POST', path: '/api/login', headers: { 'content-type': 'application/json' }, body, setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': ipFor(++n) } }) }],
    }, svc.process.pid);
  await run(3);
  const backends = (await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [name])).rows.map((r) => r.pid);
  const before = cpuSeconds(svc.process.pid!)!;
  const threadsBefore = threads(svc.process.pid!);
  const backendsBefore = backends.map((pid) => cpuSeconds(pid) ?? 0);
  const result = await run(seconds);
  const cpu = cpuSeconds(svc.process.pid!)! - before;
  const threadsAfter = threads(svc.process.pid!);
  const backendCpu = backends.reduce((sum, pid, i) => sum + (cpuSeconds(pid) ?? backendsBefore[i]!) - backendsBefore[i]!, 0);
  await svc.stop();
  const limit = JSON.parse(execFileSync(process.execPath, ['test/bench/hash-limit.ts'], { cwd: ROOT, env: { ...process.env, PBKDF2_ITERATIONS: String(iterations), SECONDS: '8' } }).toString()) as { hashesPerSecond: number };
  const per = (seconds: number) => `${fmt((seconds / result.total) * 1000, 2)} ms`;
  const byKind = new Map<string, number>();
  for (const [tid, after] of threadsAfter) {
    const kind = tid === svc.process.pid ? 'main thread' : after.name.startsWith('libuv-worker') ? 'libuv pool (the hashes)' : `other threads`;
    byKind.set(kind, (byKind.get(kind) ?? 0) + after.seconds - (threadsBefore.get(tid)?.seconds ?? 0));
  }
  console.log(`per login: ${[...byKind].map(([kind, sec]) => `${kind} ${per(sec)}`).join(', ')}; Postgres backends ${per(backendCpu)} (${backends.length})`);
  console.log(`logins: ${fmt(result.rps, 1)}/s (${result.non2xx} not 2xx), ${fmt((cpu / result.total) * 1000, 1)} ms of the server's CPU per login; PBKDF2 limit ${fmt(limit.hashesPerSecond, 1)}/s (${fmt(2000 / limit.hashesPerSecond, 1)} ms of CPU per hash on ${availableParallelism()} cores); ratio ${fmt(result.rps / limit.hashesPerSecond, 2)}`);
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile in ${dir}`);
  interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number }
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: Node[]; startTime: number; endTime: number; samples: number[] };
  const total = profile.samples.length;
  const self = new Map<string, number>();
  for (const node of profile.nodes) {
    const where = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(`file://${ROOT}`, '')}:${node.callFrame.lineNumber + 1}`;
    self.set(where, (self.get(where) ?? 0) + node.hitCount);
  }
  const idle = [...self].filter(([k]) => k.startsWith('(idle)')).reduce((s, [, v]) => s + v, 0);
  console.log(`main thread busy ${fmt((100 * (total - idle)) / total, 1)} % of ${fmt((profile.endTime - profile.startTime) / 1e6, 1)} s; profile: ${join(dir, file)}`);
  for (const [where, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 25))) console.log(`${fmt((100 * hits) / total, 1).padStart(5)} %  ${where}`);
} finally {
  await client.query(`drop database if exists ${name} with (force)`).catch(() => {});
  await client.end();
}

/** CPU seconds (user + system) of each thread of `pid`, by thread id, with its name. */
function threads(pid: number): Map<number, { readonly name: string; readonly seconds: number }> {
  const found = new Map<number, { name: string; seconds: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`).map(Number)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.split(') ')[1]!.split(' ');
      found.set(tid, { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), seconds: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return found;
}
