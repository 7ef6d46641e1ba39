/**
 * The world of a PostgreSQL race case (test/postgres/*-races.test.ts): a migrated test database, the
 * pausable store over it (packages/core/test/support/interleaving.ts), the use cases and the
 * operator's on a manual clock, Ada signed up, and `lockWaits`, how many statements of the database
 * wait on a lock now (what a case polls for, instead of a fixed time). `close` drops the database.
 */
import { createAccounts, createAdmin, type AccountsOptions } from '@sl-accounts/service/core';
import { ManualClock, testHasher } from '@sl-accounts/service/core/testing';
import { createTestDatabase, openMigratedTestStore } from '@sl-accounts/store-postgres/testing';
import { meta, pausable } from '../../packages/core/test/support/interleaving.ts';

export const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };

export async function pausedPostgresWorld(options: AccountsOptions) {
  const db = await openMigratedTestStore(await createTestDatabase());
  const paused = pausable(db);
  const clock = new ManualClock();
  const ports = { store: paused.store, hasher: testHasher, clock };
  const accounts = createAccounts(ports, options);
  const admin = createAdmin(ports, options);
  const signedUp = await accounts.signup(ADA, meta());
  const lockWaits = async () => Number((await db.query<{ n: string }>(`select count(*)::text as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`))[0]!.n);
  return { db, paused, clock, accounts, admin, signedUp, lockWaits };
}
