/**
 * The one store contract, run against every store: memory, and the Postgres adapter on whichever
 * Postgres test/support/postgres.ts finds (a server, or embedded PGlite). Every case gets a fresh
 * database.
 */
import { createMemoryStore } from '@sl/store-memory';
import { createPGliteDatabase, createTestDatabase, openTestStore, postgresServer, type TestDatabase } from '../support/postgres.ts';
import { testStoreContract, type ContractStore } from './store-contract.ts';

testStoreContract('memory', async () => createMemoryStore());

async function openMigrated(db: TestDatabase): Promise<ContractStore> {
  const store = openTestStore(db);
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    await db.drop();
    throw error;
  }
  return {
    ...store,
    close: async () => {
      await store.close();
      await db.drop();
    },
  };
}

const server = await postgresServer();
testStoreContract(server ? `postgres adapter on Postgres (${server.source})` : 'postgres adapter on PGlite', async () =>
  openMigrated(await createTestDatabase()),
);
// With a server found above, also run the adapter on PGlite, which production uses without DATABASE_URL.
if (server) testStoreContract('postgres adapter on PGlite', async () => openMigrated(await createPGliteDatabase()));
