/**
 * What `pnpm start` costs a machine, per store: start to the first 200 on a fresh and on an existing
 * data directory (or database), the resident memory (VmRSS) idle after a start on existing data, its
 * peak under a mixed load (signups, logins, failed logins, /api/me, contact messages, /api/health),
 * and the process's peak over its life (VmHWM, start included). Part of `pnpm bench`
 * (BENCH_ONLY=footprint); alone:
 *
 *   node test/bench/footprint.ts [rounds] [memory|pglite|sqlite|postgres ...]
 *
 * The servers get this process's environment (so `PGLITE_SETTINGS=... node test/bench/footprint.ts`
 * measures other settings); FOOTPRINT_FLAGS replaces the node flags of `pnpm start`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { QUICK, ROOT, START_FLAGS, fmt, freePort, ipFor, median } from './lib.ts';

export type StoreKind = 'memory' | 'pglite' | 'sqlite' | 'postgres';

/** One start-load-restart cycle of one store. */
export interface FootprintRound {
  /** Spawn to the first 200 on /api/health, ms: empty data directory (or database), then the same one again. */
  readonly freshStartMs: number;
  readonly existingStartMs: number;
  /** VmRSS in MiB: idle after the first start (on no data), idle after the start on existing data, and the highest sample under the mixed load. */
  readonly freshIdleMiB: number;
  readonly idleMiB: number;
  readonly loadedMiB: number;
  /** VmHWM in MiB: the most the process held at any moment, start included (the fresh start's, and the loaded one's). */
  readonly freshPeakMiB: number;
  readonly loadedPeakMiB: number;
  /** Requests answered under the load, per second, and how many were not 2xx. */
  readonly rps: number;
  readonly non2xx: number;
}

const MAIN = 'packages/server/src/main.ts';
const PASSWORD = 'footprint password';
const MiB = 1024; // /proc's figures are in KiB
/** How long the server is left alone before the idle reading: its start-up work (JIT, GC) done. */
const IDLE_MS = QUICK ? 300 : 3_000;

const flags = process.env.FOOTPRINT_FLAGS === undefined ? START_FLAGS : process.env.FOOTPRINT_FLAGS.split(' ').filter(Boolean);

function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) / MiB;
}

const healthy = (port: number) =>
  new Promise<boolean>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/health', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.end();
  });

interface Started {
  readonly child: ChildProcess;
  readonly base: string;
  readonly startMs: number;
  stop(): Promise<void>;
}

/** Spawns `pnpm start`'s command and polls /api/health every millisecond until it answers 200. */
async function start(env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [...flags, MAIN], {
    cwd: ROOT,
    env: { ...process.env, LOG_FORMAT: 'json', LOG_LEVEL: 'warn', TRUST_PROXY: '1', PBKDF2_ITERATIONS: '1000', ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  while (!(await healthy(port))) {
    if (child.exitCode !== null || performance.now() - t0 > 60_000) {
      await stop();
      throw new Error(`the server did not start (exit ${child.exitCode}, ${Math.round(performance.now() - t0)} ms, port ${port}): ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return { child, base: `http://127.0.0.1:${port}`, startMs: performance.now() - t0, stop };
}

/** The mixed load, each write from a new client address (TRUST_PROXY=1), so no limit trips. */
async function mixedLoad(base: string, seconds: number, pid: number): Promise<{ rps: number; non2xx: number; peakMiB: number }> {
  const json = { 'content-type': 'application/json' };
  const tag = randomBytes(4).toString('hex');
  const signup = await fetch(`${base}/api/signup`, {
    method: 'POST',
    headers: { ...json, 'x-forwarded-for': '192.0.2.1' },
    body: JSON.stringify({ name: 'Footprint', email: `footprint-${tag}@example.com`, password: PASSWORD }),
  });
  if (signup.status !== 201) throw new Error(`signup answered ${signup.status}`);
  const cookie = `sl_session=${/sl_session=([^;]+)/.exec(signup.headers.get('set-cookie') ?? '')![1]!}`;
  let n = 0;
  const nextIp = (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': ipFor(++n) } });
  const me = { method: 'GET' as const, path: '/api/me', headers: { cookie } };
  const requests = [
    me,
    { method: 'GET' as const, path: '/api/health' },
    {
      method: 'POST' as const,
      path: '/api/signup',
      headers: json,
      setupRequest: (req: autocannon.Request) => ({ ...nextIp(req), body: JSON.stringify({ name: 'Footprint', email: `fp-${tag}-${n}@example.com`, password: PASSWORD }) }),
    },
    me,
    { method: 'POST' as const, path: '/api/login', headers: json, body: JSON.stringify({ email: `footprint-${tag}@example.com`, password: PASSWORD }), setupRequest: nextIp },
    me,
    {
      method: 'POST' as const,
      path: '/api/login',
      headers: json,
      setupRequest: (req: autocannon.Request) => ({ ...nextIp(req), body: JSON.stringify({ email: `nobody-${n}@example.com`, password: 'wrong password' }) }),
    },
    {
      method: 'POST' as const,
      path: '/api/contact',
      headers: json,
      setupRequest: (req: autocannon.Request) => ({ ...nextIp(req), body: JSON.stringify({ name: 'Footprint', email: 'fp@example.com', message: `Message number ${n}` }) }),
    },
  ];
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, status(pid, 'VmRSS'))), 100);
  try {
    const r = await autocannon({ url: base, connections: 20, duration: seconds, requests });
    // A failed login is a 401 by design; anything else that is not 2xx is counted.
    return { rps: r.requests.total / (r.duration || 1), non2xx: r.non2xx - (r['4xx'] ?? 0) + r.errors + r.timeouts, peakMiB: Math.max(peak, status(pid, 'VmRSS')) };
  } finally {
    clearInterval(sampler);
  }
}

/** A fresh place for a store's data, and how to remove it. */
async function freshData(kind: StoreKind, adminUrl: string | undefined): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (kind === 'memory') return { env: { STORE: 'memory' }, drop: async () => {} };
  if (kind === 'pglite' || kind === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'sl-footprint-'));
    return { env: { STORE: kind, DATA_DIR: dir }, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const name = `sl_footprint_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl!);
  url.pathname = `/${name}`;
  return {
    env: { STORE: 'postgres', DATABASE_URL: url.toString() },
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** One round of one store: a fresh start, a restart on its data, idle, the mixed load. */
export async function footprintRound(kind: StoreKind, seconds: number, adminUrl?: string): Promise<FootprintRound> {
  const data = await freshData(kind, adminUrl);
  try {
    const fresh = await start(data.env);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const freshIdleMiB = status(fresh.child.pid!, 'VmRSS');
    const freshPeakMiB = status(fresh.child.pid!, 'VmHWM');
    await fresh.stop();
    const existing = await start(data.env);
    try {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const idleMiB = status(existing.child.pid!, 'VmRSS');
      const loaded = await mixedLoad(existing.base, seconds, existing.child.pid!);
      return {
        freshStartMs: fresh.startMs,
        existingStartMs: existing.startMs,
        freshIdleMiB,
        idleMiB,
        loadedMiB: loaded.peakMiB,
        freshPeakMiB,
        loadedPeakMiB: status(existing.child.pid!, 'VmHWM'),
        rps: loaded.rps,
        non2xx: loaded.non2xx,
      };
    } finally {
      await existing.stop();
    }
  } finally {
    await data.drop();
  }
}

/** `rounds` rounds of every store in `kinds`, the stores taking turns within each round. */
export async function footprint(kinds: readonly StoreKind[], rounds: number, seconds: number, adminUrl?: string): Promise<Map<StoreKind, FootprintRound[]>> {
  const results = new Map<StoreKind, FootprintRound[]>(kinds.map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) for (const kind of kinds) results.get(kind)!.push(await footprintRound(kind, seconds, adminUrl));
  return results;
}

/** The median of one field over rounds, formatted. */
export const medianOf = (rounds: readonly FootprintRound[], key: keyof FootprintRound, digits = 0) => fmt(median(rounds.map((r) => r[key])), digits);

if (import.meta.main) {
  const args = process.argv.slice(2);
  const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 3);
  const kinds = args.filter((a): a is StoreKind => ['memory', 'pglite', 'sqlite', 'postgres'].includes(a));
  const adminUrl = process.env.DATABASE_URL;
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const results = await footprint(kinds.length > 0 ? kinds : adminUrl ? ['memory', 'pglite', 'sqlite', 'postgres'] : ['memory', 'pglite', 'sqlite'], rounds, seconds, adminUrl);
  console.log(`flags: ${flags.join(' ') || '(none)'}; PGLITE_SETTINGS: ${process.env.PGLITE_SETTINGS ?? '(unset)'}; ${seconds} s of mixed load`);
  console.log('| Store | start, fresh (ms) | start, existing (ms) | idle RSS after the first start (MiB) | idle RSS (MiB) | loaded RSS (MiB) | peak, first start (MiB) | peak, loaded (MiB) | req/s | not 2xx |\n|---|---|---|---|---|---|---|---|---|---|');
  for (const [kind, rs] of results) {
    const all = (key: keyof FootprintRound) => `${medianOf(rs, key)} (${rs.map((r) => fmt(r[key])).join(', ')})`;
    console.log(`| ${kind} | ${all('freshStartMs')} | ${all('existingStartMs')} | ${all('freshIdleMiB')} | ${all('idleMiB')} | ${all('loadedMiB')} | ${all('freshPeakMiB')} | ${all('loadedPeakMiB')} | ${all('rps')} | ${all('non2xx')} |`);
  }
}
