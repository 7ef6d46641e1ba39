import type { Passkey, PasskeyRepository } from '@sl-accounts/service/core';
import { statement } from './compiled.ts';
import type { Unit } from './unit.ts';

const COLUMNS = ['id', 'user_id', 'name', 'public_key', 'counter', 'transports', 'created_at', 'last_used_at'] as const;

interface PasskeyRow {
  id: string;
  user_id: number;
  name: string;
  public_key: Uint8Array;
  counter: string | number | bigint;
  transports: string[];
  created_at: Date;
  last_used_at: Date | null;
}

const toPasskey = (row: PasskeyRow): Passkey => ({
  id: row.id,
  userId: row.user_id,
  name: row.name,
  // pg gives a Buffer, PGlite a Uint8Array: the same bytes, copied into a plain Uint8Array.
  publicKey: new Uint8Array(row.public_key),
  counter: Number(row.counter),
  transports: row.transports,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

// From the user's row, locked (as a session's insert): a user deleted meanwhile, or whose credential
// generation moved on since the caller read it, gets no passkey; an id stored already (any account's)
// inserts nothing either.
const insert = statement(9, (db, id: string, userId: number, generation: number, name: string, publicKey: Uint8Array, counter: number, transports: string[], createdAt: Date, lastUsedAt: Date | null) =>
  db
    .insertInto('passkeys')
    .columns([...COLUMNS])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select([
          eb.val(id).as('id'),
          'id as user_id',
          eb.val(name).as('name'),
          eb.val(publicKey).as('public_key'),
          eb.val(counter).as('counter'),
          eb.val(transports).as('transports'),
          eb.val(createdAt).as('created_at'),
          eb.val(lastUsedAt).as('last_used_at'),
        ])
        .where('id', '=', userId)
        .where('credential_generation', '=', generation)
        .forShare(),
    )
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id'),
);
const findById = statement(1, (db, id: string) => db.selectFrom('passkeys').select([...COLUMNS]).where('id', '=', id));
const listByUser = statement(1, (db, userId: number) => db.selectFrom('passkeys').select([...COLUMNS]).where('user_id', '=', userId).orderBy('created_at').orderBy('id'));
const rename = statement(3, (db, userId: number, id: string, name: string) => db.updateTable('passkeys').set({ name }).where('id', '=', id).where('user_id', '=', userId).returning('id'));
// RETURNING reports the row only to the statement that removed it: of concurrent deletes, one sees it.
const deleteOne = statement(2, (db, userId: number, id: string) => db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).returning('id'));
// The compare-and-set of a use: a concurrent update of the row makes this one wait, then check its
// condition again on the row as that one left it (READ COMMITTED's re-check of an updated row).
const recordUse = statement(3, (db, id: string, counter: number, usedAt: Date) =>
  db
    .updateTable('passkeys')
    .set({ counter, last_used_at: usedAt })
    .where('id', '=', id)
    // Forward only; or 0 and 0, an authenticator that does not count.
    .where((eb) => {
      const given = eb.cast<number>(eb.val(counter), 'bigint');
      return eb.or([eb('counter', '<', given), eb.and([eb('counter', '=', eb.lit(0)), eb(given, '=', eb.lit(0))])]);
    })
    .returning('id'),
);

export function passkeyRepository({ run }: Unit): PasskeyRepository {
  return {
    async insert(passkey, generation) {
      const rows = await insert(run, passkey.id, passkey.userId, generation, passkey.name, Buffer.from(passkey.publicKey), passkey.counter, [...passkey.transports], passkey.createdAt, passkey.lastUsedAt);
      return rows.length > 0;
    },
    async findById(id) {
      const [row] = await findById(run, id);
      return row ? toPasskey(row as PasskeyRow) : null;
    },
    async listByUser(userId) {
      return (await listByUser(run, userId)).map((row) => toPasskey(row as PasskeyRow));
    },
    async rename(userId, id, name) {
      return (await rename(run, userId, id, name)).length > 0;
    },
    async delete(userId, id) {
      return (await deleteOne(run, userId, id)).length > 0;
    },
    async recordUse(id, counter, usedAt) {
      return (await recordUse(run, id, counter, usedAt)).length > 0;
    },
  };
}
