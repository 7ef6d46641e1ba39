/**
 * What the SQLite store does beyond the contract: its file (WAL, private, kept across a reopen), its
 * migrations, and one process on a file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccountManager } from '@sl-accounts/service/core';
import { request, testHasher } from '@sl-accounts/service/http/testing';
import { createService } from '@sl-accounts/service';
import { testStore } from '@sl-accounts/store-contract';
import { createSQLiteStore, SQLITE_FILE, type SQLiteStore } from '@sl-accounts/store-sqlite';

const PHC = '$pbkdf2-sha256$i=1000$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
const sqlite = await testStore('sqlite');

describe.skipIf(sqlite.skip !== undefined)('the SQLite store', () => {
  let dir: string;
  const opened: SQLiteStore[] = [];
  const open = async (options: { dataDir?: string; path?: string } = { dataDir: dir }) => {
    const store = createSQLiteStore(options);
    opened.push(store);
    await store.migrate();
    return store;
  };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sl-sqlite-store-'));
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps its data in DATA_DIR/accounts.sqlite, in WAL mode, readable by its owner only, across a reopen', async () => {
    const store = await open();
    expect(store.path).toBe(join(dir, SQLITE_FILE));
    const user = await createAccountManager(store).signUp({ name: 'Ada', email: 'ada@example.com', passwordHash: PHC, createdAt: new Date() });
    await store.close();
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);

    const again = await open();
    // Migrated already: the second start applies nothing.
    expect(await again.migrate()).toEqual([]);
    expect(await again.users.findByEmail('ada@example.com')).toMatchObject({ id: user!.id, name: 'Ada', emailVerified: false });
  });

  it('uses the write-ahead log', async () => {
    const store = await open({ path: join(dir, 'nested', 'a.sqlite') });
    await store.contacts.add({ name: 'A', email: 'a@example.com', message: 'Hello there.', clientIp: '127.0.0.1', userAgent: null, receivedAt: new Date() });
    // Until a checkpoint, the write is in the -wal file beside the database.
    expect((await stat(join(dir, 'nested', 'a.sqlite-wal'))).size).toBeGreaterThan(0);
  });

  it('refuses a second store on the file while the first is open, saying that several processes take Postgres', async () => {
    await open();
    expect(() => createSQLiteStore({ dataDir: dir })).toThrow(/open in another process \(or store\): the SQLite store serves one process; several processes take Postgres/);
  });

  it('refuses a second process on the file, and lets one open it once the first closed it', { tags: ['process'] }, async () => {
    const store = await open();
    const second = () =>
      spawnSync(process.execPath, ['--input-type=module', '-e', `import { createSQLiteStore } from '@sl-accounts/store-sqlite'; await createSQLiteStore({ dataDir: ${JSON.stringify(dir)} }).close();`], {
        cwd: import.meta.dirname,
        encoding: 'utf8',
        timeout: 30_000,
      });
    const refused = second();
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('the SQLite store serves one process; several processes take Postgres');
    await store.close();
    const allowed = second();
    expect(allowed.stderr).not.toContain('serves one process');
    expect(allowed.status).toBe(0);
  });

  it('asks for a file', () => {
    expect(() => createSQLiteStore({})).toThrow(/needs a path \(a file\) or a dataDir/);
  });
});

describe.skipIf(sqlite.skip !== undefined)('createService on the SQLite store', () => {
  it('migrates a new file, serves signup and /api/me, and closes the file with the service', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sl-sqlite-service-'));
    try {
      const store = createSQLiteStore({ dataDir: dir });
      const service = await createService({ store, hasher: testHasher });
      const ada = await request(service.api, 'POST /api/signup', { json: { name: 'Ada', email: 'ada@example.com', password: 'correct horse' } });
      expect(ada.status).toBe(201);
      expect((await request(service.api, 'GET /api/me', { cookie: ada.cookies })).json).toMatchObject({ ok: true, user: { name: 'Ada', email: 'ada@example.com' } });
      await service.close();
      // Closed with the service: the file is free for the next process (or store).
      const again = createSQLiteStore({ dataDir: dir });
      expect(await again.users.findByEmail('ada@example.com')).toMatchObject({ name: 'Ada' });
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
