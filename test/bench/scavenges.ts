/**
 * What the young generation costs per request: `pnpm start`'s command under `--trace-gc-nvp`, loaded
 * with GET /api/me (a valid cookie, 20 connections, 20 s), and the scavenges of that time summed and
 * divided by the requests: KiB allocated, surviving a scavenge and promoted, and milliseconds of
 * scavenge pause (main thread) and of V8's helper threads per 1,000 requests.
 *
 *   node test/bench/scavenges.ts [memory|postgres] [-- node flags]
 *
 * The node flags replace those of `pnpm start` when given. Postgres: DATABASE_URL names an admin
 * connection; a database `startup_scavenges_<random>` is made and dropped again.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { ROOT, START_FLAGS, freePort } from './lib.ts';

const store = process.argv[2] === 'postgres' ? 'postgres' : 'memory';
const flags = process.argv.includes('--') ? process.argv.slice(process.argv.indexOf('--') + 1) : START_FLAGS;

const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const admin = store === 'postgres' ? new pg.Client({ connectionString: adminUrl }) : undefined;
const database = `startup_scavenges_${randomBytes(4).toString('hex')}`;
if (admin) {
  await admin.connect();
  await admin.query(`create database ${database}`);
}
try {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const port = await freePort();
  const child = spawn(process.execPath, [...flags, '--trace-gc-nvp', 'packages/server/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, STORE: store, DATABASE_URL: url.toString(), PORT: String(port), HOST: '127.0.0.1', LOG_FORMAT: 'json', LOG_LEVEL: 'warn', TRUST_PROXY: '1', PBKDF2_ITERATIONS: '1000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      if (i > 300) throw new Error('the server did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const signup = await fetch(`${base}/api/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.1' },
    body: JSON.stringify({ name: 'Scavenge User', email: 'scavenges@example.com', password: 'scavenge password' }),
  });
  const cookie = /sl_session=[^;]+/.exec(signup.headers.get('set-cookie') ?? '')![0];
  const from = out.length;
  const result = await autocannon({ url: `${base}/api/me`, connections: 20, duration: 20, headers: { cookie } });
  const scavenges = out.slice(from).split('\n').filter((line) => line.includes(' gc=s '));
  const sum = (key: string) => scavenges.reduce((total, line) => total + Number(new RegExp(` ${key}=([0-9.]+)`).exec(line)?.[1] ?? 0), 0);
  const requests = result.requests.total;
  const kib = (key: string) => Math.round((sum(key) / requests / 1024) * 100) / 100;
  const perThousand = (key: string) => Math.round((sum(key) / requests) * 1000 * 10) / 10;
  console.log(
    JSON.stringify({
      store,
      flags: flags.join(' '),
      rps: Math.round(requests / result.duration),
      scavenges: scavenges.length,
      fullGcs: (out.slice(from).match(/ gc=mc /g) ?? []).length,
      allocatedKiB: kib('allocated'),
      survivedKiB: kib('new_space_survived'),
      promotedKiB: kib('promoted'),
      pauseMsPer1000: perThousand('pause'),
      helperMsPer1000: perThousand('background.scavenge.parallel'),
    }),
  );
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
} finally {
  if (admin) {
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
  }
}
