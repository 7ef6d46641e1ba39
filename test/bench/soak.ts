/**
 * A long run of `pnpm start` under mixed load, watched from outside and inside, to see whether an
 * instance settles into a slower, larger state. Not part of `pnpm bench` (it takes minutes).
 *
 *   node test/bench/soak.ts [memory|postgres] [phases] [-- node flags]
 *
 * The node flags replace those of `pnpm start` when given (`--` alone: none). SOAK_ROOT runs the
 * server of another checkout (with its node_modules), to compare two versions run by run.
 * `phases` is a comma-separated list of `kind:seconds`, run in order against one server process:
 * `hot` (GET /api/me with a valid cookie, GET /api/health), `mixed` (those, plus signups, logins and
 * contact messages, each from a new client address behind TRUST_PROXY=1; PBKDF2_ITERATIONS=1000),
 * `idle` (no load). Default: `hot:60,mixed:90,hot:60`. Every 10 s it prints the rate, RSS, the V8
 * heap, GC counts and pauses (from `soak-probe.ts`, preloaded), and the CPU time per request of the
 * main thread, V8's helper threads ('V8Worker', before Node 24 'V8 DefaultWorke': GC and compiler
 * jobs), libuv's pool and the rest (from
 * /proc/<pid>/task/<tid>/stat). The server's log (JSON) is read and discarded, as a log shipper would.
 * Postgres: DATABASE_URL names an admin connection; a database `startup_soak_<random>` is made and
 * dropped again.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { ROOT, START_FLAGS, freePort, ipFor } from './lib.ts';

const [storeArg = 'memory', phasesArg = 'hot:60,mixed:90,hot:60'] = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.includes('--') ? process.argv.slice(process.argv.indexOf('--') + 1) : START_FLAGS;
const store = storeArg as 'memory' | 'postgres';
const phases = phasesArg.split(',').map((p) => {
  const [kind, seconds] = p.split(':');
  return { kind: kind as 'hot' | 'mixed' | 'idle', seconds: Number(seconds) };
});
const INTERVAL_S = 10;
const CONNECTIONS = 20;
const PASSWORD = 'soak password';
const TICKS = 100;

async function withDatabase<T>(fn: (url: string | undefined) => Promise<T>): Promise<T> {
  if (store !== 'postgres') return fn(undefined);
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const name = `startup_soak_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return await fn(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** CPU ticks per thread group of `pid`. */
function threadTicks(pid: number): Record<string, number> {
  const groups: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const group = Number(tid) === pid ? 'main' : /^V8 ?(DefaultWorke|Worker)/.test(name) ? 'v8' : name === 'libuv-worker' ? 'uv' : 'other';
    groups[group] = (groups[group] ?? 0) + Number(fields[11]) + Number(fields[12]);
  }
  return groups;
}

/**
 * Where the RSS is, from /proc/<pid>/smaps: the brk heap (glibc's main arena), anonymous mappings
 * that start on a 64 MiB boundary (glibc's other arenas: each is a 64 MiB aligned reservation), other
 * anonymous mappings (V8's heap pages and code, thread stacks), and files.
 */
function rssByMapping(pid: number): Record<string, number> {
  const groups: Record<string, number> = {};
  let group = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (range) {
      const arena = parseInt(range[1]!, 16) % (64 * 1024 * 1024) === 0;
      const path = range[3]!;
      group = path === '[heap]' ? 'brk heap' : path.startsWith('/') ? 'files' : path ? path : arena ? 'malloc arenas' : 'anon other';
    } else if (line.startsWith('Rss:') || line.startsWith('LazyFree:')) {
      const key = line.startsWith('Rss:') ? group : 'of which LazyFree (MADV_FREE, counted until the kernel takes it)';
      groups[key] = Math.round(((groups[key] ?? 0) + Number(line.split(/\s+/)[1]) / 1024) * 10) / 10;
    }
  }
  return groups;
}

interface Probe {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly spaces: Record<string, { size: number; used: number }>;
  readonly gcs: Record<string, { count: number; ms: number }>;
  readonly writes: { count: number; bytes: number; maxBytes: number; ms: number };
}

await withDatabase(async (databaseUrl) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const probe = fileURLToPath(new URL('soak-probe.ts', import.meta.url));
  const child = spawn(process.execPath, [...flags, '--import', probe, 'packages/server/src/main.ts'], {
    cwd: process.env.SOAK_ROOT ?? ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      STORE: store,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      TRUST_PROXY: '1',
      PBKDF2_ITERATIONS: '1000',
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let logBytes = 0;
  child.stdout!.on('data', (chunk: Buffer) => (logBytes += chunk.length));
  const probes: Probe[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    if (line.startsWith('PROBE ')) probes.push(JSON.parse(line.slice(6)) as Probe);
    else console.error(line);
  });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 300) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const signup = await fetch(`${base}/api/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.1' },
    body: JSON.stringify({ name: 'Soak User', email: 'soak@example.com', password: PASSWORD }),
  });
  const cookie = `sl_session=${/sl_session=([^;]+)/.exec(signup.headers.get('set-cookie') ?? '')![1]!}`;

  let n = 0;
  const nextIp = (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': ipFor(++n) } });
  const me = { method: 'GET' as const, path: '/api/me', headers: { cookie } };
  const health = { method: 'GET' as const, path: '/api/health' };
  const json = { 'content-type': 'application/json' };
  const mixed = [
    me,
    health,
    me,
    {
      method: 'POST' as const,
      path: '/api/signup',
      headers: json,
      setupRequest: (req: autocannon.Request) => ({ ...nextIp(req), body: JSON.stringify({ name: 'Soak Signup', email: `soak${n}@example.com`, password: PASSWORD }) }),
    },
    me,
    { method: 'POST' as const, path: '/api/login', headers: json, body: JSON.stringify({ email: 'soak@example.com', password: PASSWORD }), setupRequest: nextIp },
    me,
    {
      method: 'POST' as const,
      path: '/api/login',
      headers: json,
      setupRequest: (req: autocannon.Request) => ({ ...nextIp(req), body: JSON.stringify({ email: `nobody${n}@example.com`, password: 'wrong password' }) }),
    },
    health,
    {
      method: 'POST' as const,
      path: '/api/contact',
      headers: json,
      setupRequest: (req: autocannon.Request) => ({ ...nextIp(req), body: JSON.stringify({ name: 'Soak', email: 'soak@example.com', message: `Message ${n}` }) }),
    },
  ];

  console.log(`store ${store}, flags ${flags.join(' ') || '(none)'}, ${CONNECTIONS} connections`);
  console.log('  t s  phase  req/s    RSS  heapUsed/Total  old  new  lo  ext | minor n/ms  major n/ms | CPU us/req: main   v8   uv  other | log writes KiB/write ms | non2xx');
  let t = 0;
  /** Per phase: its intervals after the first (warm-up) one. */
  let phaseRows: { rps: number; main: number; v8: number; uv: number; minor: number; major: number; rss: number; heapUsed: number }[] = [];
  let responses = 0;
  let non2xx = 0;
  let before = threadTicks(child.pid!);
  const sample = (phase: string) => {
    const now = threadTicks(child.pid!);
    const perRequest = (group: string) => (responses > 0 ? (((now[group] ?? 0) - (before[group] ?? 0)) * 1e6) / TICKS / responses : 0);
    const p = probes.at(-1)!;
    const gc = (kind: string) => probes.slice(-INTERVAL_S).reduce((acc, q) => [acc[0]! + (q.gcs[kind]?.count ?? 0), acc[1]! + (q.gcs[kind]?.ms ?? 0)], [0, 0]);
    const [minorN, minorMs] = gc('minor');
    const [majorN, majorMs] = gc('major');
    const recent = probes.slice(-INTERVAL_S);
    const logWrites = recent.reduce((sum, q) => sum + q.writes.count, 0);
    const logKiB = recent.reduce((sum, q) => sum + q.writes.bytes, 0) / 1024 / Math.max(1, logWrites);
    const logMs = recent.reduce((sum, q) => sum + q.writes.ms, 0) / Math.max(1, logWrites);
    const f = (x: number, w: number, d = 0) => x.toFixed(d).padStart(w);
    console.log(
      `${f(t, 5)}  ${phase.padEnd(5)} ${f(responses / INTERVAL_S, 6)} ${f(p.rss, 6)} ${f(p.heapUsed, 6)}/${f(p.heapTotal, 6)} ${f(p.spaces.old?.size ?? 0, 4)} ${f(p.spaces.new?.size ?? 0, 4)} ${f(p.spaces.large_object?.size ?? 0, 3)} ${f(p.external, 4)} | ${f(minorN!, 5)}/${f(minorMs!, 4)} ${f(majorN!, 5)}/${f(majorMs!, 4)} | ${f(perRequest('main'), 17, 1)} ${f(perRequest('v8'), 4, 1)} ${f(perRequest('uv'), 4, 1)} ${f(perRequest('other'), 6, 1)} | ${f(logWrites, 10)} ${f(logKiB, 9, 1)} ${f(logMs, 4, 2)} | ${non2xx}`,
    );
    phaseRows.push({ rps: responses / INTERVAL_S, main: perRequest('main'), v8: perRequest('v8'), uv: perRequest('uv'), minor: minorN! / INTERVAL_S, major: majorN! / INTERVAL_S, rss: p.rss, heapUsed: p.heapUsed });
    before = now;
    responses = 0;
    non2xx = 0;
  };
  /** One line per phase, for scripts: the means of its intervals after the first. */
  const summarize = (phase: string) => {
    const rows = phaseRows.slice(1);
    const mean = (key: keyof (typeof rows)[number]) => rows.reduce((sum, r) => sum + r[key], 0) / Math.max(1, rows.length);
    const r = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
    console.log(`SUMMARY ${JSON.stringify({ phase, root: process.env.SOAK_ROOT ?? ROOT, flags: flags.join(' '), rps: r(mean('rps'), 0), mainUs: r(mean('main')), v8Us: r(mean('v8')), uvUs: r(mean('uv')), minorPerS: r(mean('minor')), majorPerS: r(mean('major'), 2), rssEnd: phaseRows.at(-1)?.rss, heapUsedMean: r(mean('heapUsed'), 0) })}`);
    phaseRows = [];
  };
  for (const phase of phases) {
    let done: Promise<unknown> = Promise.resolve();
    if (phase.kind !== 'idle') {
      const requests = phase.kind === 'hot' ? [me, health, me] : mixed;
      const instance = autocannon({ url: base, connections: CONNECTIONS, duration: phase.seconds, requests }, () => {});
      done = new Promise((resolve) => instance.once('done', resolve));
      instance.on('response', (_client: unknown, status: number) => {
        responses++;
        if (status >= 300) non2xx++;
      });
    }
    for (let s = 0; s < phase.seconds; s += INTERVAL_S) {
      await new Promise((r) => setTimeout(r, INTERVAL_S * 1000));
      t += INTERVAL_S;
      sample(phase.kind);
    }
    await done;
    summarize(phase.kind);
  }
  console.log(`log written: ${(logBytes / 1024 / 1024).toFixed(1)} MiB`);
  console.log(`RSS by mapping at the end (MiB): ${JSON.stringify(rssByMapping(child.pid!))}`);
  child.kill('SIGTERM');
  await exited;
});
