/**
 * The store contract on embedded PGlite and on a real PostgreSQL server, each case on a fresh,
 * migrated database of its own. Which of them run is TEST_STORES' choice (see `@sl-accounts/store-contract`).
 */
// @module-tag database
import type { ContactMessage } from '@sl-accounts/service/core';
import { testStore, testStoreContract, type OpenStore } from '@sl-accounts/store-contract';
import {
  createPGliteDatabase,
  createTestDatabase,
  locatePostgres,
  openMigratedTestStore,
  type TestDatabase,
} from '@sl-accounts/store-postgres/testing';

interface ContactRow {
  readonly name: string;
  readonly email: string;
  readonly message: string;
  readonly client_ip: string;
  readonly user_agent: string | null;
  readonly received_at: Date;
}

const openOn =
  (createDatabase: () => Promise<TestDatabase>): OpenStore =>
  async () => {
    const store = await openMigratedTestStore(await createDatabase());
    return {
      store,
      inspect: {
        contactMessages: async () =>
          (await store.query<ContactRow>('select name, email, message, client_ip, user_agent, received_at from contact_messages order by id')).map(
            (row): ContactMessage => ({
              name: row.name,
              email: row.email,
              message: row.message,
              clientIp: row.client_ip,
              userAgent: row.user_agent,
              receivedAt: row.received_at,
            }),
          ),
      },
      close: () => store.close(),
    };
  };

const [pglite, postgres] = await Promise.all([testStore('pglite'), testStore('postgres', locatePostgres)]);

testStoreContract(pglite, openOn(() => createPGliteDatabase({ migrated: true })));
testStoreContract(postgres, openOn(() => createTestDatabase({ migrated: true })));
