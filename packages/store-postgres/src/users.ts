import { EmailTaken, type UserChanges, type UserExpectation, type UserRecord, type UserRepository } from '@sl-accounts/service/core';
import { statement, type Statement } from './compiled.ts';
import type { Unit } from './unit.ts';

/** The columns of a `UserRecord`. */
export const RECORD = ['id', 'name', 'email', 'email_verified', 'password_hash', 'credential_generation', 'locked'] as const;

export interface RecordRow {
  id: number;
  name: string;
  email: string;
  email_verified: boolean;
  password_hash: string;
  credential_generation: number;
  locked: boolean;
}

export const toRecord = (row: RecordRow): UserRecord => ({
  id: row.id,
  name: row.name,
  email: row.email,
  emailVerified: row.email_verified,
  passwordHash: row.password_hash,
  credentialGeneration: row.credential_generation,
  // Left out when unlocked (UserRecord.locked).
  ...(row.locked ? { locked: true } : {}),
});

/** SQLSTATE unique_violation: an address another user holds. */
const UNIQUE_VIOLATION = '23505';

// ON CONFLICT DO NOTHING without a target covers every unique index, lower(email) included: a taken
// address (also one inserted concurrently) yields no row instead of error 23505, and the unit of work
// goes on. The id is an identity column, never reused; the generation and the verification start at
// the columns' defaults.
const insert = statement(4, (db, name: string, email: string, passwordHash: string, createdAt: Date) =>
  db.insertInto('users').values({ name, email, password_hash: passwordHash, created_at: createdAt }).onConflict((oc) => oc.doNothing()).returning(RECORD),
);
// The same expression as the unique index, so the lookup uses it.
const findByEmail = statement(1, (db, email: string) => db.selectFrom('users').select(RECORD).where((eb) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(email)]))));
const findById = statement(1, (db, id: number) => db.selectFrom('users').select(RECORD).where('id', '=', id));
const deleteUser = statement(1, (db, id: number) => db.deleteFrom('users').where('id', '=', id).returning('id'));
const sessionsOf = statement(1, (db, userId: number) => db.deleteFrom('sessions').where('user_id', '=', userId).returning('token_digest'));
const digestsOf = statement(1, (db, userId: number) => db.selectFrom('sessions').select('token_digest').where('user_id', '=', userId));

const COLUMNS = { name: 'name', email: 'email', emailVerified: 'email_verified', passwordHash: 'password_hash', credentialGeneration: 'credential_generation', locked: 'locked' } as const;
type Field = keyof typeof COLUMNS;
const FIELDS = Object.keys(COLUMNS) as Field[];

/** Each shape of update (which fields it sets, which it expects), compiled once when first used. */
const updates = new Map<string, Statement<RecordRow, unknown[]>>();

function updateOf(changes: UserChanges, expected: UserExpectation): { readonly run: Statement<RecordRow, unknown[]>; readonly values: unknown[] } {
  const set = FIELDS.filter((f) => changes[f] !== undefined);
  const where = (['credentialGeneration', 'email', 'emailVerified'] as const).filter((f) => expected[f] !== undefined);
  const key = `${set.join(',')}|${where.join(',')}`;
  let run = updates.get(key);
  if (!run) {
    run = statement(1 + set.length + where.length, (db, id, ...values) => {
      const assigned = Object.fromEntries(set.map((f, i) => [COLUMNS[f], values[i]]));
      let query = db.updateTable('users').set(assigned).where('id', '=', id as number);
      for (const [i, f] of where.entries()) query = query.where(COLUMNS[f], '=', values[set.length + i] as never);
      return query.returning(RECORD);
    });
    updates.set(key, run);
  }
  return { run, values: [...set.map((f) => changes[f]), ...where.map((f) => expected[f])] };
}

export function userRepository(unit: Unit): UserRepository {
  const { run } = unit;
  return {
    async insert(user) {
      const [row] = await insert(run, user.name, user.email, user.passwordHash, user.createdAt);
      return row ? toRecord(row) : null;
    },

    async findByEmail(email) {
      const [row] = await findByEmail(run, email);
      return row ? toRecord(row) : null;
    },

    async findById(userId) {
      const [row] = await findById(run, userId);
      return row ? toRecord(row) : null;
    },

    async update(userId, changes, expected = {}) {
      const { run: update, values } = updateOf(changes, expected);
      let row: RecordRow | undefined;
      try {
        [row] = await update(run, userId, ...values);
      } catch (error) {
        // The unique index on lower(email): the transaction is aborted, and the caller's unit with it.
        if ((error as { code?: unknown } | null)?.code === UNIQUE_VIOLATION) throw new EmailTaken();
        throw error;
      }
      if (!row) return null;
      // On a server the users-update trigger tells every process; on PGlite this process tells itself.
      if (unit.revoke && (changes.name !== undefined || changes.email !== undefined || changes.emailVerified !== undefined)) {
        unit.revoke((await digestsOf(run, userId)).map((r) => r.token_digest));
      }
      return toRecord(row);
    },

    async delete(userId) {
      // The cascade would end the sessions unannounced where no trigger announces them (PGlite).
      if (unit.revoke) unit.revoke((await sessionsOf(run, userId)).map((r) => r.token_digest));
      return (await deleteUser(run, userId)).length > 0;
    },
  };
}
