/**
 * A/B of two checkouts of the service in one interleaved run: `node test/bench/ab.ts <other-root> [rounds] [parts]`.
 * Each round starts this checkout's `pnpm start` and the other's, alternately (the order flips every
 * round), so both meet the same machine, and loads each with the same work:
 *
 * - `health`: `/api/health` on the memory store;
 * - on Postgres (DATABASE_URL's server, a fresh database per checkout, dropped at the end):
 *   `me` (`/api/me`, session cache on), `login` (one account, a client address per request),
 *   `signup` (a new address per request), `password` (a password change: one account per
 *   connection, each change alternating two passwords; unverified accounts, or with AB_VERIFIED=1
 *   verified ones) and `confirm` (`/api/email-verification/confirm`
 *   of a verification token per request, the tokens written beforehand).
 *
 * PBKDF2 runs at 1,000 iterations (AB_ITERATIONS sets another), so what is compared is the service's
 * own work and the store's.
 * Prints each part's median req/s and server CPU per request (user + system of the server process),
 * with this checkout's ratio to the other's: what "no slower than before" means on a noisy 2-core
 * machine, where a ratio to a floor swings 1.5x between runs. `parts` is a comma list (default all).
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { START_FLAGS, fmt, ipFor, load, median, spawnServer, type Child, type LoadResult } from './lib.ts';

const [other, roundsArg, partsArg] = process.argv.slice(2);
if (!other) throw new Error('usage: node test/bench/ab.ts <other checkout> [rounds] [parts]');
const rounds = Number(roundsArg ?? 4);
const PARTS = ['health', 'me', 'login', 'signup', 'password', 'confirm'] as const;
type Part = (typeof PARTS)[number];
const parts = new Set((partsArg ?? PARTS.join(',')).split(',') as Part[]);
const SECONDS = Number(process.env.AB_SECONDS ?? 4);
const CONNECTIONS = 10;
const checkouts = { this: '.', other };
type Side = keyof typeof checkouts;

const admin = new pg.Client({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
await admin.connect();
const tag = randomBytes(3).toString('hex');
// AB_DB_PREFIX: on a server shared with others, each keeps to its own database names.
const prefix = process.env.AB_DB_PREFIX ?? 'ab_';
const databases: Record<Side, string> = { this: `${prefix}this_${tag}`, other: `${prefix}other_${tag}` };
const urlOf = (side: Side) => Object.assign(new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'), { pathname: `/${databases[side]}` }).toString();

/**
 * `AB_THIS_HOST=node` (or `fetch`, `koa`) runs this checkout's side under that host of
 * test/bench/host-server.ts instead of `pnpm start`'s Koa app: against a checkout from before
 * issue 40 (whose `pnpm start` served through node:http), `node` compares the same host on both sides.
 */
const THIS_HOST = process.env.AB_THIS_HOST;

async function start(root: string, env: Record<string, string>): Promise<Child> {
  const host = root === checkouts.this ? THIS_HOST : undefined;
  const script = host ? 'test/bench/host-server.ts' : join(root, 'packages/server/src/main.ts');
  return spawnServer(script, { ...(host ? { BENCH_HOST: host } : {}), PBKDF2_ITERATIONS: process.env.AB_ITERATIONS ?? '1000', TRUST_PROXY: '1', LOG_LEVEL: 'warn', LOGIN_FAILURES_PER_ACCOUNT: '1000000', ...env }, '/api/health', [...START_FLAGS]);
}

let clients = 0;
/** A fresh client address: every limit per client stays far away. */
const nextIp = () => ipFor(++clients);
const json = { 'content-type': 'application/json' };

async function signUp(url: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/signup`, { method: 'POST', headers: { ...json, 'x-forwarded-for': nextIp() }, body: JSON.stringify({ name: 'Ada', email, password }) });
  if (res.status !== 201) throw new Error(`signup of ${email}: ${res.status} ${await res.text()}`);
  return /sl_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!;
}

const run = (url: string, pid: number, requests: Parameters<typeof load>[1]['requests'], amount?: number): Promise<LoadResult> =>
  load(url, { connections: CONNECTIONS, ...(amount ? { amount } : { duration: SECONDS }), requests }, pid);

/** One part on one started server; `n` makes its addresses and tokens unique across rounds and sides. */
async function measure(part: Exclude<Part, 'health'>, url: string, pid: number, n: string, db: pg.Client): Promise<LoadResult> {
  switch (part) {
    case 'me': {
      const cookie = `sl_session=${await signUp(url, `me.${n}@example.com`, 'long enough')}`;
      return load(`${url}/api/me`, { connections: 50, duration: SECONDS, headers: { cookie } }, pid);
    }
    case 'login': {
      await signUp(url, `login.${n}@example.com`, 'long enough');
      const body = JSON.stringify({ email: `login.${n}@example.com`, password: 'long enough' });
      return run(url, pid, [{ method: 'POST', path: '/api/login', headers: json, body, setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': nextIp() } }) }]);
    }
    case 'signup': {
      let k = 0;
      return run(url, pid, [
        {
          method: 'POST',
          path: '/api/signup',
          headers: json,
          setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': nextIp() }, body: JSON.stringify({ name: 'Ada', email: `signup.${n}.${++k}@example.com`, password: 'long enough' }) }),
        },
      ]);
    }
    case 'password': {
      // Two accounts per connection, so one is never changed twice at once; each change flips its password.
      const accounts = await Promise.all(Array.from({ length: 2 * CONNECTIONS }, async (_, i) => ({ cookie: `sl_session=${await signUp(url, `password.${n}.${i}@example.com`, 'first password')}`, password: 'first password', busy: false })));
      // AB_VERIFIED=1: accounts whose owners confirmed their address, as most who change a password have
      // (an unverified account's notice also counts against its inbox since issue 32).
      if (process.env.AB_VERIFIED === '1') await db.query(`update users set email_verified = true where email like $1`, [`password.${n}.%`]);
      const flip = (p: string) => (p === 'first password' ? 'second password' : 'first password');
      return run(url, pid, [
        {
          method: 'POST',
          path: '/api/password',
          setupRequest: (req, context) => {
            const account = accounts.find((a) => !a.busy)!;
            account.busy = true;
            (context as Record<string, unknown>)['account'] = account;
            return { ...req, headers: { ...json, cookie: account.cookie }, body: JSON.stringify({ currentPassword: account.password, newPassword: flip(account.password) }) };
          },
          onResponse: (status, _body, context) => {
            const account = (context as Record<string, unknown>)['account'] as (typeof accounts)[number];
            if (status === 200) account.password = flip(account.password);
            account.busy = false;
          },
        },
      ]);
    }
    case 'confirm': {
      // Accounts with a verification token each that this script knows (signup's own is replaced).
      const count = 2_000;
      const tokens = Array.from({ length: count }, () => randomBytes(32).toString('base64url'));
      const base = `confirm.${n}`;
      for (let i = 0; i < count; i += 100) await Promise.all(tokens.slice(i, i + 100).map((_, j) => signUp(url, `${base}.${i + j}@example.com`, 'long enough')));
      await db.query(
        `update email_tokens t set token_digest = d.digest from unnest($1::text[], $2::text[]) as d(email, digest), users u where u.email = d.email and t.user_id = u.id`,
        [tokens.map((_, i) => `${base}.${i}@example.com`), tokens.map((t) => createHash('sha256').update(t).digest('hex'))],
      );
      let k = 0;
      return run(url, pid, [{ method: 'POST', path: '/api/email-verification/confirm', headers: json, setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': nextIp() }, body: JSON.stringify({ token: tokens[k++ % count] }) }) }], count);
    }
  }
}

const results = new Map<Part, Record<Side, LoadResult[]>>(PARTS.map((p) => [p, { this: [], other: [] }]));
try {
  for (const side of ['this', 'other'] as const) await admin.query(`create database ${databases[side]}`);
  const sql: Record<Side, pg.Client> = { this: new pg.Client({ connectionString: urlOf('this') }), other: new pg.Client({ connectionString: urlOf('other') }) };
  for (let round = 0; round < rounds; round++) {
    for (const side of (round % 2 === 0 ? ['this', 'other'] : ['other', 'this']) as Side[]) {
      const root = checkouts[side];
      if (parts.has('health')) {
        const memory = await start(root, { STORE: 'memory' });
        results.get('health')![side].push(await load(`${memory.url}/api/health`, { connections: 50, duration: SECONDS }, memory.process.pid));
        await memory.stop();
      }
      const onPostgres = PARTS.filter((p): p is Exclude<Part, 'health'> => p !== 'health' && parts.has(p));
      if (onPostgres.length === 0) continue;
      const server = await start(root, { DATABASE_URL: urlOf(side) });
      if (round === 0) await sql[side].connect();
      for (const part of onPostgres) {
        const result = await measure(part, server.url, server.process.pid!, `${round}.${side}`, sql[side]);
        if (result.non2xx > 0 || result.errors > 0) console.warn(`${part}, ${side}, round ${round}: ${result.non2xx} answers not 2xx, ${result.errors} errors`);
        results.get(part)![side].push(result);
      }
      await server.stop();
    }
    console.log(`round ${round + 1} of ${rounds} done`);
  }
  await Promise.all(Object.values(sql).map((c) => c.end().catch(() => {})));
} finally {
  for (const side of ['this', 'other'] as const) await admin.query(`drop database if exists ${databases[side]} with (force)`);
  await admin.end();
}

console.log(`\n${rounds} rounds, ${SECONDS} s each (confirm: 2,000 tokens), PBKDF2 at ${process.env.AB_ITERATIONS ?? '1000'} iterations; this checkout vs ${other}`);
for (const [part, r] of results) {
  if (r.this.length === 0) continue;
  const rps = (side: Side) => median(r[side].map((x) => x.rps));
  const cpu = (side: Side) => median(r[side].map((x) => x.cpuUs ?? Number.NaN));
  console.log(
    `${part.padEnd(8)} req/s this ${fmt(rps('this'))} (${r.this.map((x) => fmt(x.rps)).join(', ')}), other ${fmt(rps('other'))} (${r.other.map((x) => fmt(x.rps)).join(', ')}): ${fmt(rps('this') / rps('other'), 2)}; ` +
      `CPU/request this ${fmt(cpu('this'))} µs, other ${fmt(cpu('other'))} µs: ${fmt(cpu('other') / cpu('this'), 2)} (other/this: above 1 is this cheaper)`,
  );
}
