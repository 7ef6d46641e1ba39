import type { FactorKind, SessionRepository } from '@sl-accounts/service/core';
import DataLoader from 'dataloader';
import { sql, type Kysely } from 'kysely';
import { statement } from './compiled.ts';
import type { Database } from './database.ts';
import type { Unit } from './unit.ts';

/**
 * `INSERT INTO sessions … SELECT … FROM users WHERE id = $user AND credential_generation = $generation
 * FOR <lock>`: the session exists only if the user does, at that generation, and the user's row stays
 * locked in `lock` mode until the statement's transaction ends. A change of credential's update (or a
 * deletion) conflicts with either lock: it waits for this insert to commit and then ends the session
 * with the others, or this statement waits for it and then finds the generation moved on (Postgres
 * checks a locked row's newest version again), or the user gone, and inserts nothing.
 */
function insertUnderGeneration(db: Kysely<Database>, lock: 'share' | 'no key update', tokenDigest: string, userId: number, generation: number, createdAt: Date, expiresAt: Date) {
  return db
    .insertInto('sessions')
    .columns(['token_digest', 'user_id', 'created_at', 'expires_at'])
    .expression((eb) => {
      const owner = eb
        .selectFrom('users')
        .select((s) => [s.val(tokenDigest).as('token_digest'), 'id', s.val(createdAt).as('created_at'), s.val(expiresAt).as('expires_at')])
        .where('id', '=', userId)
        .where('credential_generation', '=', generation);
      return lock === 'share' ? owner.forShare() : owner.forNoKeyUpdate();
    })
    .returning('token_digest');
}

// Alone, the row lock is shared: logins of one user do not wait for each other. In a unit of work it
// is NO KEY UPDATE, held to the commit: it serialises one user's inserts (a cap on them holds under
// concurrent logins), and does not block the foreign-key checks of other sessions' inserts.
const insertAlone = statement(5, (db, d: string, u: number, g: number, c: Date, e: Date) => insertUnderGeneration(db, 'share', d, u, g, c, e));
const insertLocked = statement(5, (db, d: string, u: number, g: number, c: Date, e: Date) => insertUnderGeneration(db, 'no key update', d, u, g, c, e));
// One round trip per /api/me: the session and its user in a single join.
const findWithUser = statement(1, (db, digest: string) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['users.id', 'users.name', 'users.email', 'users.email_verified', 'sessions.expires_at'])
    .where('sessions.token_digest', '=', digest),
);
// The same lookup for several sessions at once (see `batchedLookups`).
const findManyWithUser = statement(1, (db, digests: readonly string[]) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['sessions.token_digest', 'users.id', 'users.name', 'users.email', 'users.email_verified', 'sessions.expires_at'])
    .where(sql<boolean>`sessions.token_digest = any(${digests})`),
);
const listByUser = statement(2, (db, userId: number, now: Date) =>
  db.selectFrom('sessions').select(['id', 'token_digest', 'created_at', 'expires_at']).where('user_id', '=', userId).where('expires_at', '>', now).orderBy('created_at').orderBy('id'),
);
// RETURNING reports the row only to the statement that removed it, so of two concurrent deletes exactly one sees it.
const deleteOne = statement(1, (db, digest: string) => db.deleteFrom('sessions').where('token_digest', '=', digest).returning('expires_at'));
// `except` '' names no session: a digest is 64 hex digits (a check constraint).
const deleteAllBut = statement(2, (db, userId: number, except: string) => db.deleteFrom('sessions').where('user_id', '=', userId).where('token_digest', '<>', except).returning('token_digest'));
const deleteOldest = statement(3, (db, userId: number, except: string, keep: number) =>
  db
    .deleteFrom('sessions')
    .where('token_digest', 'in', (q) =>
      q.selectFrom('sessions').select('token_digest').where('user_id', '=', userId).where('token_digest', '<>', except).orderBy('created_at', 'desc').orderBy('token_digest', 'desc').offset(keep),
    )
    .returning('token_digest'),
);

// An update of the row: the sessions' update trigger tells the revocation feed (a cache re-reads it: harmless).
const recordStepUp = statement(3, (db, digest: string, kind: FactorKind, at: Date) => db.updateTable('sessions').set({ step_up_kind: kind, step_up_at: at }).where('token_digest', '=', digest).returning('token_digest'));
const findStepUp = statement(1, (db, digest: string) => db.selectFrom('sessions').select(['step_up_kind', 'step_up_at']).where('token_digest', '=', digest));

type Found = Awaited<ReturnType<typeof findWithUser>>[number];

/**
 * The session lookups that reach the pool in one turn of the event loop, as one statement. Under load
 * many requests ask at once, and each statement costs the process a socket write and read, pg's
 * parsing and a pool checkout: one `= any($1)` statement for all of them costs a fraction of that.
 * Each lookup still reads the database after its request arrived (the statement leaves after the
 * turn), so what any request sees is as fresh as its own statement would be. `dataloader`
 * collects the keys; its cache is off (every request reads anew) and a batch waits for the end of the
 * turn (`setImmediate`), not only its own callback, so lookups of different requests meet.
 */
function batchedLookups(run: Unit['run']): (digest: string) => Promise<Found | null> {
  const loader = new DataLoader<string, Found | null>(
    async (digests) => {
      const rows = await findManyWithUser(run, digests.length === 1 ? digests : [...new Set(digests)]);
      const byDigest = new Map(rows.map((row) => [row.token_digest, row]));
      return digests.map((digest) => byDigest.get(digest) ?? null);
    },
    { cache: false, batchScheduleFn: (dispatch) => setImmediate(dispatch), maxBatchSize: 100 },
  );
  return (digest) => loader.load(digest);
}

export function sessionRepository(unit: Unit): SessionRepository {
  const { run } = unit;
  // A unit of work's statements run on its own connection, in order: never batched with others.
  const lookup = unit.batchReads && !unit.inTransaction ? batchedLookups(run) : async (digest: string) => (await findWithUser(run, digest))[0] ?? null;
  const ended = (digests: readonly string[]) => {
    if (digests.length > 0) unit.revoke?.(digests);
    return digests;
  };
  return {
    async insert(session) {
      const { tokenDigest, userId, credentialGeneration, createdAt, expiresAt } = session;
      return (await (unit.inTransaction ? insertLocked : insertAlone)(run, tokenDigest, userId, credentialGeneration, createdAt, expiresAt)).length > 0;
    },

    async findWithUser(tokenDigest) {
      const row = await lookup(tokenDigest);
      return row ? { user: { id: row.id, name: row.name, email: row.email, emailVerified: row.email_verified }, expiresAt: row.expires_at } : null;
    },

    async listByUser(userId, now) {
      const rows = await listByUser(run, userId, now);
      return rows.map((r) => ({ id: r.id, tokenDigest: r.token_digest, createdAt: r.created_at, expiresAt: r.expires_at }));
    },

    async delete(tokenDigest) {
      const [row] = await deleteOne(run, tokenDigest);
      if (!row) return null;
      ended([tokenDigest]);
      return { expiresAt: row.expires_at };
    },

    async deleteByUser(userId, kept = {}) {
      const except = kept.except ?? '';
      const rows = kept.keepNewest ? await deleteOldest(run, userId, except, kept.keepNewest) : await deleteAllBut(run, userId, except);
      return ended(rows.map((r) => r.token_digest));
    },

    async recordStepUp(tokenDigest, kind, at) {
      return (await recordStepUp(run, tokenDigest, kind, at)).length > 0;
    },

    async findStepUp(tokenDigest) {
      const [row] = await findStepUp(run, tokenDigest);
      return row?.step_up_kind && row.step_up_at ? { kind: row.step_up_kind, verifiedAt: row.step_up_at } : null;
    },
  };
}
