/**
 * The store contract on SQLite, each case on a fresh file of its own (in a temporary directory,
 * removed afterwards). Whether it runs is TEST_STORES' choice (see `@sl-accounts/store-contract`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContactMessage } from '@sl-accounts/core';
import { testStore, testStoreContract } from '@sl-accounts/store-contract';
import { openSQLite } from '../src/sqlite-store.ts';

interface ContactRow {
  readonly name: string;
  readonly email: string;
  readonly message: string;
  readonly client_ip: string;
  readonly user_agent: string | null;
  readonly received_at: number;
}

testStoreContract(await testStore('sqlite'), async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sl-sqlite-contract-'));
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
