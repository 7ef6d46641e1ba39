/**
 * Which Postgres the tests use, and a fresh database for each suite or server that asks:
 *
 * 1. `DATABASE_URL` when set (CI sets it): `CREATE DATABASE test_<random>` on that server;
 * 2. else a testcontainers Postgres, when a container runtime answers;
 * 3. else embedded PGlite in a temporary directory.
 *
 * Every database is dropped (or its directory removed) by its `drop()`.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, statfsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll } from 'vitest';
import pg from 'pg';
import { createPGliteStore, createPostgresStore, type PostgresStore } from '@sl/store-postgres';

export type SqlClient = pg.Client;
const { Client } = pg;

/** A Postgres server the tests may create databases on. */
export interface PostgresServer {
  /** Connection string of a database to administer from (e.g. `…/postgres`). */
  readonly url: string;
  /** Where it came from, for test names and skip reasons. */
  readonly source: 'DATABASE_URL' | 'testcontainers' | 'local';
}

export type TestDatabase =
  | { readonly kind: 'server'; readonly url: string; readonly source: PostgresServer['source']; drop(): Promise<void> }
  | { readonly kind: 'pglite'; readonly dataDir: string; drop(): Promise<void> };

/** A fresh, empty database on the server (`DATABASE_URL` or a container), else in a PGlite directory. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = await postgresServer();
  return server ? createServerDatabase(server) : createPGliteDatabase();
}

/** Opens the Postgres adapter on a test database (not migrated yet). */
export function openTestStore(db: TestDatabase): PostgresStore {
  return db.kind === 'server' ? createPostgresStore({ connectionString: db.url, poolSize: 10 }) : createPGliteStore({ dataDir: db.dataDir });
}

let server: Promise<PostgresServer | null> | undefined;

/** `DATABASE_URL`, else a container when a runtime answers, else `null` (use PGlite). Started once per test file. */
export function postgresServer(): Promise<PostgresServer | null> {
  server ??= (async () => {
    const url = process.env.DATABASE_URL;
    if (url) return { url, source: 'DATABASE_URL' } as const;
    return startContainer();
  })();
  return server;
}

const LOCAL_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * A server that several processes can share, for tests that PGlite (one process per directory)
 * cannot serve: `DATABASE_URL`, else a local server at 127.0.0.1:5432 that lets `postgres` in,
 * else a container; `null` when there is none.
 */
export async function sharedPostgresServer(): Promise<PostgresServer | null> {
  if (process.env.DATABASE_URL) return postgresServer();
  if (await answers(LOCAL_URL)) return { url: LOCAL_URL, source: 'local' };
  return postgresServer();
}

/** `CREATE DATABASE test_<random>` on the server; `drop()` removes it even with connections left open. */
export async function createServerDatabase(server: PostgresServer): Promise<TestDatabase & { kind: 'server' }> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  await withSql(server.url, (sql) => sql.query(`create database "${name}"`));
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  return {
    kind: 'server',
    url: url.toString(),
    source: server.source,
    drop: async () => {
      await withSql(server.url, (sql) => sql.query(`drop database if exists "${name}" with (force)`));
    },
  };
}

/** Runs `fn` with a connected pg client, and disconnects. */
export async function withSql<T>(url: string, fn: (sql: SqlClient) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {}); // a dropped connection fails the query; the emitter must not throw
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function answers(url: string): Promise<boolean> {
  return withSql(url, (sql) => sql.query('select 1')).then(
    () => true,
    () => false,
  );
}

/**
 * RAM-backed where there is room (a PGlite directory is a thousand small files, 40 MB): /dev/shm
 * with at least 1 GiB free, which rules out Docker's 64 MB default; else the temp directory.
 */
const TEMP_ROOT = (() => {
  try {
    const { bavail, bsize } = statfsSync('/dev/shm');
    if (bavail * bsize >= 2 ** 30) return '/dev/shm';
  } catch {
    // no /dev/shm (macOS, Windows)
  }
  return tmpdir();
})();

let template: Promise<string> | undefined;

// Registered while the importing test file is collected, so it runs when that file is done. (Only
// under vitest: a benchmark script may import this module too.)
if (process.env.VITEST) {
  afterAll(async () => {
    if (template) await rm(await template, { recursive: true, force: true });
  });
}

/**
 * A fresh PGlite directory, copied from a template: `initdb` takes PGlite more than a second, a
 * copy a fraction of that. The template is built once per test file and left unmigrated, so every
 * database starts empty as on a server.
 */
export async function createPGliteDatabase(): Promise<TestDatabase & { kind: 'pglite' }> {
  template ??= (async () => {
    const dir = await mkdtemp(join(TEMP_ROOT, 'sl-pglite-template-'));
    const store = createPGliteStore({ dataDir: dir });
    try {
      await store.ping(); // runs initdb
    } finally {
      await store.close();
    }
    return dir;
  })();
  const source = await template;
  const dataDir = await mkdtemp(join(TEMP_ROOT, 'sl-pglite-'));
  await copyDir(source, dataDir);
  return { kind: 'pglite', dataDir, drop: () => rm(dataDir, { recursive: true, force: true }) };
}

/** Copies a directory tree with all file copies in flight at once: ten times faster than fs.cp here. */
async function copyDir(source: string, target: string): Promise<void> {
  const entries = await readdir(source, { recursive: true, withFileTypes: true });
  const path = (e: (typeof entries)[number]) => relative(source, join(e.parentPath, e.name));
  for (const dir of entries.filter((e) => e.isDirectory())) await mkdir(join(target, path(dir)), { recursive: true });
  await Promise.all(entries.filter((e) => e.isFile()).map((file) => copyFile(join(source, path(file)), join(target, path(file)))));
}

/** Sockets a container runtime usually listens on; without any, testcontainers is not even loaded. */
function containerRuntimeLikely(): boolean {
  if (process.env.DOCKER_HOST) return true;
  const runtimeDir = process.env.XDG_RUNTIME_DIR;
  const candidates = [
    '/var/run/docker.sock',
    join(homedir(), '.docker/run/docker.sock'),
    join(homedir(), '.docker/desktop/docker.sock'),
    join(homedir(), '.colima/default/docker.sock'),
    join(homedir(), '.rd/docker.sock'),
    ...(runtimeDir ? [join(runtimeDir, 'docker.sock'), join(runtimeDir, 'podman/podman.sock')] : []),
  ];
  return candidates.some((path) => existsSync(path));
}

async function startContainer(): Promise<PostgresServer | null> {
  if (!containerRuntimeLikely()) return null;
  try {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    // Removed by testcontainers' reaper when this process ends.
    const container = await new PostgreSqlContainer('postgres:17-alpine').start();
    return { url: container.getConnectionUri(), source: 'testcontainers' };
  } catch {
    return null; // a socket without a working runtime behind it: fall back to PGlite
  }
}
