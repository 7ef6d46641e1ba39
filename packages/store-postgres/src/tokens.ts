/**
 * Single-use tokens (ADR 0054): one table for every purpose, one statement for each step. A take is a
 * DELETE … RETURNING: of concurrent takes, also from several processes, only the statement that
 * removed the row sees it.
 */
import { sql, type Kysely } from 'kysely';
import type { OneTimeToken, OneTimeTokenPurpose, OneTimeTokenRepository } from '@sl-accounts/service/core';
import { statement } from './compiled.ts';
import type { Database } from './database.ts';
import type { Unit } from './unit.ts';

const COLUMNS = ['digest', 'purpose', 'user_id', 'credential_generation', 'email', 'data', 'failures', 'slot', 'created_at', 'expires_at'] as const;
const RETURNED = ['digest', 'purpose', 'user_id', 'credential_generation', 'email', 'data', 'failures', 'created_at', 'expires_at'] as const;
type Values = [digest: string, purpose: OneTimeTokenPurpose, userId: number | null, generation: number | null, email: string | null, data: string | null, failures: number, slot: string | null, createdAt: Date, expiresAt: Date];

/**
 * The put: from the user's row under its share lock when the token is bound to an account (at the
 * token's generation when `underGeneration`), else as given. A user deleted meanwhile (or, under the
 * generation, whose generation moved on) gets no token: a deletion under way is waited for, then the
 * row is gone and nothing is inserted (without the lock the insert saw the row, and the foreign key
 * failed once the deletion committed: a 500 where the answer is "no such account"); a change of
 * credential waits for this insert's transaction, then deletes the token with the account's. The
 * token replaces the one in its slot (`on conflict (slot)`), or, without a slot, the one with its
 * digest (a login challenge put back with one more failure).
 */
type Bound = 'none' | 'account' | 'generation';
function put(db: Kysely<Database>, bound: Bound, slotted: boolean, ...v: Values) {
  const [digest, purpose, userId, generation, email, data, failures, slot, createdAt, expiresAt] = v;
  const insert = db.insertInto('one_time_tokens').columns([...COLUMNS]);
  const values =
    bound === 'none'
      ? insert.values({ digest, purpose, user_id: userId, credential_generation: generation, email, data, failures, slot, created_at: createdAt, expires_at: expiresAt })
      : insert.expression((eb) => {
          const fromUser = eb
            .selectFrom('users')
            .select([
              eb.val(digest).as('digest'),
              eb.val(purpose).as('purpose'),
              'id',
              bound === 'generation' ? 'credential_generation' : eb.val(generation).as('credential_generation'),
              eb.val(email).as('email'),
              eb.val(data).as('data'),
              eb.val(failures).as('failures'),
              eb.val(slot).as('slot'),
              eb.val(createdAt).as('created_at'),
              eb.val(expiresAt).as('expires_at'),
            ])
            .where('id', '=', userId as number);
          return (bound === 'generation' ? fromUser.where('credential_generation', '=', generation as number) : fromUser).forShare();
        });
  return values
    .onConflict((oc) => (slotted ? oc.column('slot') : oc.column('digest')).doUpdateSet((eb) => Object.fromEntries(COLUMNS.map((c) => [c, eb.ref(`excluded.${c}`)]))))
    .returning('digest');
}
const BOUNDS: readonly Bound[] = ['none', 'account', 'generation'];
const PUTS = new Map(BOUNDS.flatMap((bound) => [false, true].map((slotted) => [`${bound}:${slotted}`, statement(10, (db, ...v: Values) => put(db, bound, slotted, ...v))] as const)));

// After each put that bounds an account's tokens, its own statement: it sees every row committed before
// it (READ COMMITTED), so the last of concurrent puts' trims sees them all, and a row among the newest
// is among the newest of whatever subset an earlier trim saw: at most `count` remain, the newest.
const trim = statement(3, (db, userId: number, purposes: readonly OneTimeTokenPurpose[], count: number) =>
  db
    .deleteFrom('one_time_tokens')
    .where('user_id', '=', userId)
    .where('purpose', '=', sql<OneTimeTokenPurpose>`any(${purposes})`)
    .where('digest', 'not in', db.selectFrom('one_time_tokens').select('digest').where('user_id', '=', userId).where('purpose', '=', sql<OneTimeTokenPurpose>`any(${purposes})`).orderBy('created_at', 'desc').orderBy('digest', 'desc').limit(count)),
);
// The take locks the account's row first (as an update of it would), then deletes the token. A unit
// of work that takes a token and then changes its account (a reset, an address's confirmation) so
// locks in the deletion's order: the account's row, then its tokens (the cascade). Taking the token's
// row first deadlocked with a deletion that had the account's row and waited for the token's (40P01,
// a 500). A token whose account was deleted meanwhile went with it: the take finds nothing.
const take = statement(3, (db, digest: string, now: Date, purposes: readonly OneTimeTokenPurpose[]) =>
  db
    .deleteFrom('one_time_tokens')
    .where('digest', '=', digest)
    .where('expires_at', '>', now)
    .where('purpose', '=', sql<OneTimeTokenPurpose>`any(${purposes})`)
    .where((eb) =>
      eb.or([
        eb('user_id', 'is', null),
        eb('user_id', 'in', eb.selectFrom('users').select('id').where('id', '=', eb.selectFrom('one_time_tokens').select('user_id').where('digest', '=', digest)).forNoKeyUpdate()),
      ]),
    )
    .returning([...RETURNED]),
);
/** Deletes the tokens expired at `now`; answers how many of each purpose. */
export const deleteExpiredTokens = statement(1, (db, now: Date) =>
  db
    .with('deleted', (q) => q.deleteFrom('one_time_tokens').where('expires_at', '<=', now).returning('purpose'))
    .selectFrom('deleted')
    .select(['purpose', sql<number>`count(*)::int`.as('n')])
    .groupBy('purpose'),
);

export function oneTimeTokenRepository({ run }: Unit): OneTimeTokenRepository {
  return {
    async put(t: OneTimeToken, options = {}) {
      const slot = options.slot ?? null;
      const bound: Bound = options.underGeneration ? 'generation' : t.userId === null ? 'none' : 'account';
      const statement = PUTS.get(`${bound}:${slot !== null}`)!;
      const stored = await statement(run, t.digest, t.purpose, t.userId, t.credentialGeneration, t.email, t.data, t.failures, slot, t.createdAt, t.expiresAt);
      if (stored.length === 0) return false;
      if (options.keepNewest && t.userId !== null) await trim(run, t.userId, options.keepNewest.purposes, options.keepNewest.count);
      return true;
    },
    async take(purposes, digest, now) {
      const [row] = await take(run, digest, now, typeof purposes === 'string' ? [purposes] : purposes);
      if (!row) return null;
      return { digest: row.digest, purpose: row.purpose, userId: row.user_id, credentialGeneration: row.credential_generation, email: row.email, data: row.data, failures: row.failures, createdAt: row.created_at, expiresAt: row.expires_at };
    },
  };
}
