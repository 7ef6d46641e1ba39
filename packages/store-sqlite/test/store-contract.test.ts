/**
 * The store contract on SQLite, each case on a file of its own (a copy of one migrated file, in a
 * temporary directory, removed afterwards). Whether it runs is TEST_STORES' choice (see `@sl-accounts/store-contract`).
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { ContactMessage } from '@sl-accounts/service/core';
import { testStore, testStoreContract } from '@sl-accounts/store-contract';
import { createSQLiteStore, openSQLite, SQLITE_FILE } from '../src/sqlite-store.ts';

interface ContactRow {
  readonly name: string;
  readonly email: string;
  readonly message: string;
  readonly client_ip: string;
  readonly user_agent: string | null;
  readonly received_at: number;
}

/**
 * A file migrated once, which each case starts from a copy of: a fresh file's migrations cost four
 * times a copy (41 and 10 ms), and are sqlite-store.test.ts's to check. Each case still runs the
 * store's migrate, which finds the copy at the latest schema.
 */
let template: Promise<string> | undefined;
const migrated = () =>
  (template ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sl-sqlite-template-'));
    const store = createSQLiteStore({ dataDir: dir });
    await store.migrate();
    await store.close();
    return dir;
  })());
afterAll(async () => {
  if (template) await rm(await template, { recursive: true, force: true });
});

testStoreContract(await testStore('sqlite'), async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sl-sqlite-contract-'));
  await copyFile(join(await migrated(), SQLITE_FILE), join(dir, SQLITE_FILE));
  const { store, file } = openSQLite({ dataDir: dir });
  await store.migrate();
  return {
    store,
    inspect: {
      // Through the store's own connection: the file allows no other while the store is open.
      contactMessages: async () =>
        (file.prepare('select name, email, message, client_ip, user_agent, received_at from contact_messages order by id').all() as unknown as ContactRow[]).map(
          (row): ContactMessage => ({ name: row.name, email: row.email, message: row.message, clientIp: row.client_ip, userAgent: row.user_agent, receivedAt: new Date(row.received_at) }),
        ),
    },
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
