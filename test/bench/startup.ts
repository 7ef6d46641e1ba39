/**
 * Start-up time of `pnpm start`: from spawning the process (with the flags `package.json` gives) to
 * its `listening` log line, and to the first 200 answer of `GET /api/health` (polled every ms), and
 * the CPU time the process has used by then. Median of `runs` runs per store; with DATABASE_URL set,
 * Postgres too (in a database of its own). Give `label=dir` arguments to compare checkouts of the
 * repository (each with its node_modules), run by run in turn:
 *
 *   node test/bench/startup.ts [runs] [label=dir ...]
 *
 * `STARTUP_CASES=memory,sqlite,pglite` runs the cases whose names start so; each store's start is also
 * given over the memory store's start of the same run (the pairs share the machine's load).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const RUNS = Number(process.argv[2] ?? 7);
const ROOTS: readonly (readonly [string, string])[] =
  process.argv.length > 3 ? process.argv.slice(3).map((arg) => arg.split('=') as [string, string]) : [['', fileURLToPath(new URL('../../', import.meta.url))]];
const PORT = Number(process.env.STARTUP_PORT ?? 42_117);
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const TICKS = 100;

interface Times {
  readonly listening: number;
  readonly health: number;
  /** CPU time (user and system, all threads) when the first 200 came. */
  readonly cpu: number;
}

const startArgs = (root: string) => (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ').slice(1);

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

const healthy = () =>
  new Promise<boolean>((resolve) => {
    const req = request({ host: '127.0.0.1', port: PORT, path: '/api/health', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.end();
  });

async function once(root: string, env: Record<string, string>): Promise<Times> {
  const start = performance.now();
  const child = spawn(process.execPath, startArgs(root), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(PORT), LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let listening = NaN;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (Number.isNaN(listening) && line.includes('"msg":"listening"')) listening = performance.now() - start;
  });
  let health = NaN;
  let cpu = NaN;
  while (child.exitCode === null) {
    if (await healthy()) {
      health = performance.now() - start;
      cpu = cpuMs(child.pid!);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  if (Number.isNaN(health)) throw new Error('the server exited before it answered');
  return { listening, health, cpu };
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;

const cases: { name: string; env: () => Record<string, string> }[] = [];
cases.push({ name: 'memory', env: () => ({ STORE: 'memory' }) });
cases.push({ name: 'memory, NODE_DISABLE_COMPILE_CACHE=1', env: () => ({ STORE: 'memory', NODE_DISABLE_COMPILE_CACHE: '1' }) });
let fresh = '';
cases.push({
  name: 'pglite, fresh data dir',
  env: () => {
    fresh = mkdtempSync(join(tmpdir(), 'startup-fresh-'));
    return { STORE: 'pglite', DATA_DIR: fresh };
  },
});
const existing = mkdtempSync(join(tmpdir(), 'startup-existing-'));
cases.push({ name: 'pglite, existing data dir', env: () => ({ STORE: 'pglite', DATA_DIR: existing }) });
cases.push({
  name: 'sqlite, fresh data dir',
  env: () => {
    fresh = mkdtempSync(join(tmpdir(), 'startup-fresh-'));
    return { STORE: 'sqlite', DATA_DIR: fresh };
  },
});
// The default store (ADR 42): neither STORE nor DATABASE_URL, on a directory its first start made.
const existingSQLite = mkdtempSync(join(tmpdir(), 'startup-existing-sqlite-'));
cases.push({ name: 'sqlite (the default), existing data dir', env: () => ({ DATA_DIR: existingSQLite }) });
const database = process.env.DATABASE_URL ? 'startup_bench' : undefined;
if (database) cases.push({ name: 'postgres', env: () => ({ STORE: 'postgres', DATABASE_URL: new URL(`/${database}`, process.env.DATABASE_URL).href }) });

// STARTUP_CASES=memory,sqlite,pglite keeps the cases whose names start with one of these.
const only = process.env.STARTUP_CASES?.split(',');
if (only) cases.splice(0, cases.length, ...cases.filter((c) => only.some((prefix) => c.name.startsWith(prefix))));

const admin = database ? new pg.Client({ connectionString: process.env.DATABASE_URL }) : undefined;
if (admin) {
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin.query(`CREATE DATABASE ${database}`);
}
try {
  // One unmeasured start per checkout creates the existing data dir, migrates the database, and
  // fills the compile cache (as any start after the first finds it).
  for (const [, root] of ROOTS) {
    await once(root, { STORE: 'pglite', DATA_DIR: existing });
    await once(root, { DATA_DIR: existingSQLite });
    if (database) await once(root, cases.at(-1)!.env());
  }
  const results = new Map<string, Times[]>();
  // Interleaved, so a noisy minute hits every case alike.
  for (let run = 0; run < RUNS; run++) {
    for (const c of cases) {
      for (const [label, root] of ROOTS) {
        const name = label ? `${label}: ${c.name}` : c.name;
        results.set(name, [...(results.get(name) ?? []), await once(root, c.env())]);
        if (fresh) rmSync(fresh, { recursive: true, force: true });
        fresh = '';
      }
    }
  }
  console.log(`| Store | listening (ms) | first 200 on /api/health (ms) | CPU time by then (ms) |\n|---|---|---|---|`);
  for (const [name, times] of results) {
    const fmt = (key: keyof Times) => `${median(times.map((t) => t[key])).toFixed(0)} (${times.map((t) => t[key].toFixed(0)).join(', ')})`;
    console.log(`| ${name} | ${fmt('listening')} | ${fmt('health')} | ${fmt('cpu')} |`);
  }
  // Each run's start over the memory store's start of the same run: the pairs share the machine's minute.
  const memory = results.get(ROOTS[0]![0] ? `${ROOTS[0]![0]}: memory` : 'memory');
  if (memory) {
    console.log('\n| Store | first 200 over the memory store\'s, same run (ms) |\n|---|---|');
    for (const [name, times] of results) {
      if (name.endsWith('memory')) continue;
      const over = times.map((t, i) => t.health - memory[i]!.health);
      console.log(`| ${name} | ${median(over).toFixed(0)} (${over.map((d) => d.toFixed(0)).join(', ')}) |`);
    }
  }
} finally {
  rmSync(existing, { recursive: true, force: true });
  rmSync(existingSQLite, { recursive: true, force: true });
  if (admin) {
    await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.end();
  }
}
