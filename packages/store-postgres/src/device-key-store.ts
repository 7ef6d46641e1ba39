import type { Kysely } from 'kysely';
import type { DeviceKeyStore } from '@sl-accounts/service/core';
import type { Database } from './database.ts';

export class PostgresDeviceKeyStore implements DeviceKeyStore {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async getOrCreate(candidate: string): Promise<string> {
    // Of processes that ask at once, the first insert wins; the others' do nothing and read its key.
    await this.#db.insertInto('device_keys').values({ id: 1, key: candidate, created_at: new Date() }).onConflict((c) => c.column('id').doNothing()).execute();
    const row = await this.#db.selectFrom('device_keys').select('key').where('id', '=', 1).executeTakeFirstOrThrow();
    return row.key;
  }
}
