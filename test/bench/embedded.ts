/**
 * The embedded stores side by side: `pnpm start` on PGlite and on SQLite (each on a new data
 * directory of its own, both running), their signup, login and /api/me rates measured round by round
 * in turn, with the CPU each request cost the server. The store's own work shows: PBKDF2 at 1,000
 * iterations (at 600,000 a login is the hash, whatever the store) and the session cache off (with it
 * on, /api/me is answered from memory on either store). Part of `pnpm bench` (BENCH_ONLY=embedded);
 * alone:
 *
 *   node test/bench/embedded.ts [rounds]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { fmt, ipFor, load, median, spawnServer, START_FLAGS, warmUp, type Child, type LoadResult } from './lib.ts';

export type EmbeddedKind = 'pglite' | 'sqlite';
export const EMBEDDED_KINDS: readonly EmbeddedKind[] = ['pglite', 'sqlite'];
export const EMBEDDED_ROUTES = ['signup', 'login', 'me'] as const;
export type EmbeddedRoute = (typeof EMBEDDED_ROUTES)[number];

const PASSWORD = 'embedded bench password';
const json = { 'content-type': 'application/json' };

interface Server {
  readonly child: Child;
  readonly cookie: string;
  readonly dir: string;
}

async function startOn(kind: EmbeddedKind): Promise<Server> {
  const dir = await mkdtemp(join(tmpdir(), `sl-bench-${kind}-`));
  const child = await spawnServer(
    'packages/server/src/main.ts',
    { STORE: kind, DATA_DIR: dir, TRUST_PROXY: '1', PBKDF2_ITERATIONS: '1000', LOGIN_FAILURES_PER_ACCOUNT: '1000000', SESSION_CACHE_SIZE: '0', LOG_LEVEL: 'warn' },
    '/api/health',
    [...START_FLAGS],
  );
  const signUp = async (email: string, ip: string) => {
    const res = await fetch(`${child.url}/api/signup`, { method: 'POST', headers: { ...json, 'x-forwarded-for': ip }, body: JSON.stringify({ name: 'Bench', email, password: PASSWORD }) });
    if (res.status !== 201) throw new Error(`signup on ${kind} answered ${res.status}`);
    return `sl_session=${/sl_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!}`;
  };
  // The logins' account, and another whose one session /api/me reads: the logins' sessions past the
  // cap (50 per account) end the oldest, and would end that one.
  await signUp('bench@example.com', '192.0.2.1');
  return { child, cookie: await signUp('me@example.com', '192.0.2.2'), dir };
}

let clients = 0;
/** Each request from a client address of its own (TRUST_PROXY=1), so no per-client limit trips. */
const nextIp = (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': ipFor(++clients) } });

function run(server: Server, route: EmbeddedRoute, seconds: number): Promise<LoadResult> {
  const options = { connections: 8, duration: seconds };
  const pid = server.child.process.pid;
  switch (route) {
    case 'me':
      return load(`${server.child.url}/api/me`, { ...options, headers: { cookie: server.cookie } }, pid);
    case 'login':
      return load(server.child.url, { ...options, requests: [{ method: 'POST', path: '/api/login', headers: json, body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }), setupRequest: nextIp }] }, pid);
    case 'signup':
      return load(
        server.child.url,
        {
          ...options,
          requests: [
            { method: 'POST', path: '/api/signup', headers: json, setupRequest: (req) => ({ ...nextIp(req), body: JSON.stringify({ name: 'Bench', email: `bench-${clients}@example.com`, password: PASSWORD }) }) },
          ],
        },
        pid,
      );
  }
}

/** Rounds of every route on every embedded store, the stores taking turns within each route of each round. */
export async function embeddedRates(rounds: number, seconds: number): Promise<Map<EmbeddedKind, Map<EmbeddedRoute, LoadResult[]>>> {
  const servers = new Map<EmbeddedKind, Server>();
  try {
    for (const kind of EMBEDDED_KINDS) servers.set(kind, await startOn(kind));
    const results = new Map(EMBEDDED_KINDS.map((kind) => [kind, new Map(EMBEDDED_ROUTES.map((route) => [route, [] as LoadResult[]]))]));
    // Warm-up, not counted: JIT and the first pages of each file.
    for (const kind of EMBEDDED_KINDS) for (const route of EMBEDDED_ROUTES) await run(servers.get(kind)!, route, warmUp(1));
    for (let i = 0; i < rounds; i++) {
      for (const route of EMBEDDED_ROUTES) {
        // Which store goes first alternates, so neither always meets the machine just after the other.
        const order = i % 2 === 0 ? EMBEDDED_KINDS : [...EMBEDDED_KINDS].reverse();
        for (const kind of order) results.get(kind)!.get(route)!.push(await run(servers.get(kind)!, route, seconds));
      }
    }
    return results;
  } finally {
    await Promise.all([...servers.values()].map(async (s) => {
      await s.child.stop();
      await rm(s.dir, { recursive: true, force: true });
    }));
  }
}

/** `req/s (CPU µs per request)` medians of one store's route. */
export function rateOf(results: readonly LoadResult[]): { readonly rps: number; readonly cpuUs: number; readonly bad: number } {
  return { rps: median(results.map((r) => r.rps)), cpuUs: median(results.map((r) => r.cpuUs ?? Number.NaN)), bad: results.reduce((n, r) => n + r.non2xx + r.errors, 0) };
}

if (import.meta.main) {
  const rounds = Number(process.argv[2] ?? 3);
  const seconds = Number(process.env.BENCH_SECONDS ?? 4);
  const results = await embeddedRates(rounds, seconds);
  console.log(`${new Date().toISOString()}: ${rounds} rounds of ${seconds} s, 8 connections, PBKDF2 1,000 iterations, session cache off`);
  console.log('| Route | PGlite req/s (CPU µs/req) | SQLite req/s (CPU µs/req) | SQLite / PGlite |\n|---|---|---|---|');
  for (const route of EMBEDDED_ROUTES) {
    const p = rateOf(results.get('pglite')!.get(route)!);
    const s = rateOf(results.get('sqlite')!.get(route)!);
    console.log(`| ${route} | ${fmt(p.rps)} (${fmt(p.cpuUs)}) | ${fmt(s.rps)} (${fmt(s.cpuUs)}) | ${(s.rps / p.rps).toFixed(2)} |${p.bad + s.bad > 0 ? ` ${p.bad + s.bad} not 2xx` : ''}`);
  }
}
