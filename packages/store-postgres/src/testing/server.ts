/**
 * The real PostgreSQL server that tests use, and fresh databases on it. Never PGlite: a test that
 * asks for a server and finds none is told so, and decides whether to skip or fail.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describeDatabaseError } from '../unavailable.ts';

/** A connected pg client, as `withSql` lends it. */
export type SqlClient = pg.Client;

/** A Postgres server the tests may create databases on. */
export interface PostgresServer {
  /** Connection string of a database to administer from (e.g. `…/postgres`). */
  readonly url: string;
  /** Where it came from, for test titles. */
  readonly source: 'DATABASE_URL' | 'local' | 'testcontainers';
}

/** A server found, or why there is none and what to start. */
export type PostgresLookup = { readonly server: PostgresServer } | { readonly missing: string };

/** Where the tests look for a server when DATABASE_URL is unset. */
export const LOCAL_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

let lookup: Promise<PostgresLookup> | undefined;

/** Where a run's global setup leaves the lookup it made, so that test files do not repeat it. */
export const LOOKUP_ENV = 'TEST_POSTGRES_LOOKUP';

/**
 * Finds the server, once per module instance (vitest: once per test file), or takes the one a
 * global setup found for the whole run (TEST_POSTGRES_LOOKUP, see `shareLookup`):
 *
 * 1. `DATABASE_URL` when set; when it does not answer, there is no server (it is never replaced by
 *    another), and the reason says so;
 * 2. else 127.0.0.1:5432 as user `postgres` when it answers;
 * 3. else a testcontainers Postgres when a container runtime answers.
 */
export function findPostgresServer(): Promise<PostgresLookup> {
  lookup ??= (async () => {
    const shared = process.env[LOOKUP_ENV];
    if (shared) return JSON.parse(shared) as PostgresLookup;
    const url = process.env.DATABASE_URL;
    if (url) {
      const problem = await reach(url);
      if (problem) return { missing: `DATABASE_URL (${hostOf(url)}) does not answer: ${problem}. Start that server, or unset DATABASE_URL to use 127.0.0.1:5432 or a container` };
      return { server: { url, source: 'DATABASE_URL' } };
    }
    const localProblem = await reach(LOCAL_URL);
    if (!localProblem) return { server: { url: LOCAL_URL, source: 'local' } };
    const container = await startContainer();
    if ('url' in container) return { server: { url: container.url, source: 'testcontainers' } };
    return {
      missing:
        `no PostgreSQL server: DATABASE_URL is unset, 127.0.0.1:5432 did not let user postgres in (${localProblem}), ` +
        `and testcontainers could not start one (${container.problem}). Start PostgreSQL on 127.0.0.1:5432 ` +
        `letting user postgres in, set DATABASE_URL, or start Docker or Podman`,
    };
  })();
  return lookup;
}

/**
 * For a test run's global setup: finds the server once for the whole run and leaves the answer in
 * the environment the test files inherit, so that every file uses the same server (and one
 * container, when it takes one) instead of each looking again.
 */
export async function shareLookup(): Promise<PostgresLookup> {
  const found = await findPostgresServer();
  process.env[LOOKUP_ENV] = JSON.stringify(found);
  return found;
}

/** The server from findPostgresServer, or `null` when there is none. */
export async function postgresServer(): Promise<PostgresServer | null> {
  const found = await findPostgresServer();
  return 'server' in found ? found.server : null;
}

/** Host and port of a connection string, without its credentials (for messages and titles). */
export function hostOf(url: string): string {
  return new URL(url).host;
}

/**
 * `CREATE DATABASE test_<random>` on the server, empty, or a copy of `template` (a database no one
 * is connected to); `drop()` removes it even with connections left open.
 */
export async function createServerDatabase(server: PostgresServer, options: { readonly template?: string } = {}): Promise<ServerDatabase> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  const template = options.template === undefined ? '' : ` template "${options.template.replaceAll('"', '""')}"`;
  await withSql(server.url, (sql) => sql.query(`create database "${name}"${template}`));
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

/** A fresh database on the test server (see createServerDatabase). */
export interface ServerDatabase {
  readonly kind: 'server';
  readonly url: string;
  readonly source: PostgresServer['source'];
  drop(): Promise<void>;
}

/** Runs `fn` with a connected pg client, and disconnects. */
export async function withSql<T>(url: string, fn: (sql: SqlClient) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {}); // a dropped connection fails the query; the emitter must not throw
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** `null` when the server answers `select 1`, else what went wrong. */
async function reach(url: string): Promise<string | null> {
  return withSql(url, (sql) => sql.query('select 1')).then(
    () => null,
    (error: unknown) => describeDatabaseError(error),
  );
}

/** Sockets a container runtime usually listens on; without any, testcontainers is not even loaded. */
function containerSocket(): string | undefined {
  if (process.env.DOCKER_HOST) return process.env.DOCKER_HOST;
  const runtimeDir = process.env.XDG_RUNTIME_DIR;
  const candidates = [
    '/var/run/docker.sock',
    join(homedir(), '.docker/run/docker.sock'),
    join(homedir(), '.docker/desktop/docker.sock'),
    join(homedir(), '.colima/default/docker.sock'),
    join(homedir(), '.rd/docker.sock'),
    ...(runtimeDir ? [join(runtimeDir, 'docker.sock'), join(runtimeDir, 'podman/podman.sock')] : []),
  ];
  return candidates.find((path) => existsSync(path));
}

async function startContainer(): Promise<{ readonly url: string } | { readonly problem: string }> {
  const socket = containerSocket();
  if (!socket) return { problem: 'no Docker or Podman socket, DOCKER_HOST unset' };
  try {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    // Removed by testcontainers' reaper when this process ends.
    const container = await new PostgreSqlContainer('postgres:17-alpine').start();
    return { url: container.getConnectionUri() };
  } catch (error) {
    return { problem: `${socket}: ${describeDatabaseError(error)}` };
  }
}

/** Where the run's migrated template database is: set by `createPostgresTemplate`'s caller, read by `createTestDatabase`. */
export const POSTGRES_TEMPLATE_ENV = 'TEST_POSTGRES_MIGRATED_TEMPLATE';

/**
 * A migrated database on `server` for a run's global setup to put into `process.env` (`env`; test
 * files inherit it) and `remove()` in its teardown. Copying it takes about half of what creating a
 * database and migrating it takes (326 vs 683 ms here, 2026-11-25), and the store contract makes
 * one per case. No one connects to it once it is built (a copy needs the template left alone).
 */
export async function createPostgresTemplate(server: PostgresServer): Promise<{ readonly env: Record<string, string>; remove(): Promise<void> }> {
  const database = await createServerDatabase(server);
  const { createPostgresStore } = await import('../postgres-store.ts');
  const store = createPostgresStore({ connectionString: database.url });
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    await database.drop();
    throw error;
  }
  await store.close();
  const name = new URL(database.url).pathname.slice(1);
  return { env: { [POSTGRES_TEMPLATE_ENV]: name }, remove: () => database.drop() };
}
