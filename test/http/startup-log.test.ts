/**
 * What `pnpm start` prints: a start-up line that names the URL, the store and where its data is
 * (a directory, or a database's host and name, never a password) and the docs; readable lines on a
 * terminal or with LOG_FORMAT=pretty, JSON otherwise; and one line for a stop.
 */
// @module-tag process
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testStore } from '@sl-accounts/store-contract';
import { createPGliteDatabase, createTestDatabase, locatePostgres } from '@sl-accounts/store-postgres/testing';
import { START_ENTRY, spawnServer } from '../support/server-process.ts';

const postgres = await testStore('postgres', locatePostgres);
type Entry = { msg: string; url?: string; store?: string; dataDir?: string; file?: string; database?: string; docs?: string; signal?: string };
const entries = (output: string): Entry[] => output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Entry);

describe('the start-up line', () => {
  // On a copy of the run's migrated PGlite template: what this case reads is the line, and a new
  // data directory's initdb took more than the case's 30 s on a machine at load 8-12 (start-up on a
  // new directory is start-up.test.ts's and the bench's). A generous bound beside it, for the same reason.
  it('names the URL, PGlite and its data directory, and the docs; a stop is one line', { timeout: 90_000 }, async () => {
    const database = await createPGliteDatabase({ migrated: true });
    try {
      const app = await spawnServer({ STORE: 'pglite', DATA_DIR: database.dataDir });
      await app.stop();
      const lines = entries(app.output());
      const listening = lines.find((e) => e.msg === 'listening')!;
      expect(listening).toMatchObject({ url: app.url, store: 'pglite', dataDir: resolve(database.dataDir), docs: `${app.url}/docs/api` });
      expect(lines.filter((e) => e.signal)).toEqual([expect.objectContaining({ msg: 'SIGTERM received: stopping', signal: 'SIGTERM' })]);
      expect(app.child.exitCode).toBe(0);
    } finally {
      await database.drop();
    }
  });

  it('with no STORE: SQLite on a new DATA_DIR; a DATA_DIR that holds PGlite’s data keeps being opened as PGlite, its accounts served', { tags: ['process', 'database'], timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'default-store-'));
    const post = (url: string, path: string, body: object) => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const account = { name: 'Kept', email: 'kept@example.com', password: 'kept password' };
    try {
      const fresh = await spawnServer({ DATA_DIR: join(dir, 'new') });
      await fresh.stop();
      expect(entries(fresh.output()).find((e) => e.msg === 'listening')).toMatchObject({ store: 'sqlite', file: resolve(dir, 'new', 'accounts.sqlite') });

      // A directory a version with PGlite as its default made (copied from the run's migrated template).
      const old = await createPGliteDatabase({ migrated: true });
      try {
        const first = await spawnServer({ DATA_DIR: old.dataDir });
        expect(entries(first.output()).find((e) => e.msg === 'listening')).toMatchObject({ store: 'pglite', dataDir: resolve(old.dataDir) });
        expect((await post(first.url, '/api/signup', account)).status).toBe(201);
        await first.stop();
        const again = await spawnServer({ DATA_DIR: old.dataDir });
        try {
          expect(entries(again.output()).find((e) => e.msg === 'listening')).toMatchObject({ store: 'pglite' });
          expect((await post(again.url, '/api/login', { email: account.email, password: account.password })).status).toBe(200);
        } finally {
          await again.stop();
        }
      } finally {
        await old.drop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(postgres.skip !== undefined)(`names the database's host and name, never its password (${postgres.title})`, async () => {
    const database = await createTestDatabase();
    try {
      const url = new URL(database.url);
      url.password = 'not-for-the-log-7f3a';
      const app = await spawnServer({ STORE: 'postgres', DATABASE_URL: url.toString() });
      await app.stop();
      const listening = entries(app.output()).find((e) => e.msg === 'listening')!;
      expect(listening).toMatchObject({ store: 'postgres', database: `${url.host}${url.pathname}` });
      expect(app.output()).not.toContain('not-for-the-log-7f3a');
    } finally {
      await database.drop();
    }
  });

  it('is a readable line with LOG_FORMAT=pretty, as on a terminal', async (ctx) => {
    const child = spawn(process.execPath, [START_ENTRY], {
      // With a SECRETS_KEY, as in production: without one the start also warns that TOTP secrets are sealed with the development key.
      env: { PATH: process.env.PATH ?? '', STORE: 'memory', PORT: '0', LOG_FORMAT: 'pretty', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // A server that did not stop must not outlive the test.
    ctx.onTestFinished(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
    let output = '';
    let pressed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // Ctrl-C as soon as the start-up line shows: the stop must still be a clean one.
      if (!pressed && output.includes('listening on')) pressed = child.kill('SIGINT');
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const lines = output.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening on http:\/\/localhost:\d+; store: memory \(nothing survives a restart\); API docs: http:\/\/localhost:\d+\/docs\/api; mail: log \(SMTP_URL unset: mails are written here, not sent\), contact messages not mailed \(CONTACT_TO unset\) \{/);
    expect(lines[1]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: SIGINT received: stopping$/);
    expect(lines).toHaveLength(2);
  });
});
