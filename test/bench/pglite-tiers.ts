/**
 * PGlite's WebAssembly with V8's optimizing tier (TurboFan) and without it (`--liftoff-only`, as
 * `pnpm start` runs): requests per second and the server's CPU per request, the two alternating
 * round by round, and each server's resident memory (VmRSS now, VmHWM its peak) at the end.
 * Loads: GET /api/me with the session cache on (the default: the cache answers), with it off (one
 * session lookup per request), and POST /api/contact (the limiter's statements and an insert).
 *
 *   node test/bench/pglite-tiers.ts [rounds] [seconds]
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { START_FLAGS, fmt, ipFor, load, median, spawnServer, type Child, type LoadOptions, type LoadResult } from './lib.ts';

const ROUNDS = Number(process.argv[2] ?? 3);
const SECONDS = Number(process.argv[3] ?? 4);
const MAIN = 'packages/server/src/main.ts';
const base = START_FLAGS.filter((f) => f !== '--liftoff-only');
const variants = { turbofan: base, liftoff: [...base, '--liftoff-only'] };

const vm = (pid: number, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

const dirs: string[] = [];
const children: Child[] = [];
async function server(flags: string[], env: Record<string, string>): Promise<Child> {
  const dir = await mkdtemp(join(tmpdir(), 'sl-tiers-'));
  dirs.push(dir);
  const child = await spawnServer(MAIN, { STORE: 'pglite', DATA_DIR: dir, TRUST_PROXY: '1', PBKDF2_ITERATIONS: '1000', LOG_LEVEL: 'warn', ...env }, '/api/health', flags);
  children.push(child);
  return child;
}

async function cookie(url: string): Promise<string> {
  const res = await fetch(`${url}/api/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.1' },
    body: JSON.stringify({ name: 'Tiers', email: 'tiers@example.com', password: 'tiers password' }),
  });
  return `sl_session=${/sl_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!}`;
}

let n = 0;
const contact: LoadOptions = {
  connections: 16,
  duration: SECONDS,
  requests: [
    {
      method: 'POST',
      path: '/api/contact',
      headers: { 'content-type': 'application/json' },
      setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': ipFor(++n) }, body: JSON.stringify({ name: 'Tiers', email: 't@example.com', message: `Message ${n}` }) }),
    },
  ],
};

try {
  const loads: { name: string; servers: Record<keyof typeof variants, { child: Child; options: LoadOptions; path: string }> }[] = [];
  for (const [name, env, path] of [
    ['/api/me, cache on', {}, '/api/me'],
    ['/api/me, cache off', { SESSION_CACHE_SIZE: '0' }, '/api/me'],
    ['POST /api/contact', {}, ''],
  ] as const) {
    const servers = {} as (typeof loads)[number]['servers'];
    for (const [variant, flags] of Object.entries(variants) as [keyof typeof variants, string[]][]) {
      const child = await server(flags, env);
      const options: LoadOptions = path ? { connections: 16, duration: SECONDS, headers: { cookie: await cookie(child.url) } } : contact;
      servers[variant] = { child, options, path };
    }
    loads.push({ name, servers });
  }
  const results = new Map<string, LoadResult[]>();
  const run = async (name: string, s: { child: Child; options: LoadOptions; path: string }, duration: number) => {
    const r = await load(`${s.child.url}${s.path}`, { ...s.options, duration }, s.child.process.pid);
    return { name, r };
  };
  for (const { name, servers } of loads) for (const [variant, s] of Object.entries(servers)) await run(`${name} ${variant}`, s, 1); // warm-up
  for (let i = 0; i < ROUNDS; i++) {
    for (const { name, servers } of loads) {
      const order = (i % 2 ? ['liftoff', 'turbofan'] : ['turbofan', 'liftoff']) as (keyof typeof variants)[];
      for (const variant of order) {
        const { r } = await run(name, servers[variant], SECONDS);
        const key = `${name}|${variant}`;
        results.set(key, [...(results.get(key) ?? []), r]);
      }
    }
  }
  console.log(`${ROUNDS} rounds of ${SECONDS} s, alternating\n`);
  console.log('| Load | TurboFan req/s (µs CPU/req) | --liftoff-only req/s (µs CPU/req) | ratio | RSS / peak MiB, TurboFan | RSS / peak MiB, Liftoff |\n|---|---|---|---|---|---|');
  for (const { name, servers } of loads) {
    const t = results.get(`${name}|turbofan`)!;
    const l = results.get(`${name}|liftoff`)!;
    const rate = (rs: LoadResult[]) => median(rs.map((r) => r.rps));
    const cpu = (rs: LoadResult[]) => median(rs.map((r) => r.cpuUs ?? Number.NaN));
    const mem = (c: Child) => `${fmt(vm(c.process.pid!, 'VmRSS'))} / ${fmt(vm(c.process.pid!, 'VmHWM'))}`;
    const rounds = (rs: LoadResult[]) => rs.map((r) => fmt(r.rps)).join(', ');
    console.log(
      `| ${name} | ${fmt(rate(t))} (${fmt(cpu(t), 1)}) [${rounds(t)}] | ${fmt(rate(l))} (${fmt(cpu(l), 1)}) [${rounds(l)}] | ${(rate(l) / rate(t)).toFixed(2)} | ${mem(servers.turbofan.child)} | ${mem(servers.liftoff.child)} |`,
    );
  }
} finally {
  await Promise.all(children.map((c) => c.stop()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
}
