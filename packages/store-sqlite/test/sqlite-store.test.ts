/**
 * What the SQLite store does beyond the contract: its file (WAL, private, kept across a reopen), its
 * migrations, and one process on a file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccountManager, type OneTimeToken, type OneTimeTokenPurpose } from '@sl-accounts/service/core';
import { request, testHasher } from '@sl-accounts/service/http/testing';
import { createService } from '@sl-accounts/service';
import { testStore } from '@sl-accounts/store-contract';
import { createSQLiteStore, SQLITE_FILE, type SQLiteStore } from '@sl-accounts/store-sqlite';
import { kyselyOn } from '../src/database.ts';
import { migrateToLatest } from '../src/schema.ts';
import { openSQLite } from '../src/sqlite-store.ts';

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

  it('migration 0004 moves every token, challenge and step-up of the old tables into one_time_tokens and sessions, then drops them', async () => {
    const { store, file } = openSQLite({ dataDir: dir });
    opened.push(store);
    expect(await migrateToLatest(kyselyOn(file), '0003_passkeys')).toContain('0003_passkeys');
    const T = Date.parse('2031-03-01T12:00:00Z');
    const d = (n: number) => n.toString(16).padStart(64, '0');
    file.exec(`insert into users (id, name, email, password_hash, credential_generation, created_at) values (1, 'Ada', 'ada@example.com', '${PHC}', 2, ${T})`);
    file.exec(`insert into sessions (token_digest, id, user_id, created_at, expires_at) values ('${d(1)}', 's1', 1, ${T}, ${T + 86_400_000}), ('${d(2)}', 's2', 1, ${T}, ${T + 86_400_000})`);
    file.exec(`insert into step_ups (session_digest, kind, verified_at) values ('${d(1)}', 'totp', ${T + 1000})`);
    file.exec(`insert into password_resets (email, user_id, credential_generation, token_digest, created_at, expires_at) values ('ada@example.com', 1, 2, '${d(11)}', ${T}, ${T + 1_800_000}), ('nobody@example.com', null, null, '${d(12)}', ${T}, ${T + 1_800_000})`);
    file.exec(`insert into email_tokens (user_id, token_digest, purpose, email, credential_generation, created_at, expires_at) values (1, '${d(21)}', 'change', 'lovelace@example.com', 2, ${T}, ${T + 86_400_000})`);
    file.exec(`insert into login_challenges (token_digest, user_id, credential_generation, failures, created_at, expires_at) values ('${d(31)}', 1, 2, 3, ${T}, ${T + 300_000})`);
    file.exec(`insert into passkey_challenges (digest, purpose, user_id, created_at, expires_at) values ('${d(41)}', 'step-up', 1, ${T}, ${T + 300_000}), ('${d(42)}', 'sign-in', null, ${T}, ${T + 300_000})`);

    expect(await store.migrate()).toEqual(['0004_one_time_tokens', '0005_identities', '0006_activity']);
    const tables = file.prepare("select name from sqlite_master where type = 'table'").all().map((r) => r.name);
    for (const gone of ['password_resets', 'email_tokens', 'login_challenges', 'passkey_challenges', 'step_ups']) expect(tables).not.toContain(gone);
    const now = new Date(T);
    const token = (digest: string, purpose: OneTimeTokenPurpose, userId: number | null, fields: Partial<OneTimeToken>): OneTimeToken => ({
      digest, purpose, userId, credentialGeneration: userId === null ? null : 2, email: null, data: null, failures: 0, createdAt: now, expiresAt: new Date(T + 300_000), ...fields,
    });
    expect(await store.oneTimeTokens.take('password-reset', d(11), now)).toEqual(token(d(11), 'password-reset', 1, { email: 'ada@example.com', expiresAt: new Date(T + 1_800_000) }));
    expect(await store.oneTimeTokens.take(['verify-email', 'change-email'], d(21), now)).toEqual(token(d(21), 'change-email', 1, { email: 'lovelace@example.com', expiresAt: new Date(T + 86_400_000) }));
    expect(await store.oneTimeTokens.take('login', d(31), now)).toEqual(token(d(31), 'login', 1, { failures: 3 }));
    expect(await store.oneTimeTokens.take('passkey-step-up', d(41), now)).toEqual(token(d(41), 'passkey-step-up', 1, { credentialGeneration: null }));
    expect(await store.oneTimeTokens.take('passkey-sign-in', d(42), now)).toEqual(token(d(42), 'passkey-sign-in', null, {}));
    expect(await store.sessions.findStepUp(d(1))).toEqual({ kind: 'totp', verifiedAt: new Date(T + 1000) });
    expect(await store.sessions.findStepUp(d(2))).toBeNull();
    // The unbound reset kept its address's slot: a new request for the address replaces it.
    await store.oneTimeTokens.put(token(d(13), 'password-reset', null, { email: 'nobody@example.com' }), { slot: 'reset:nobody@example.com' });
    expect(await store.oneTimeTokens.take('password-reset', d(12), now)).toBeNull();
    expect(await store.oneTimeTokens.take('password-reset', d(13), now)).not.toBeNull();
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
