/**
 * Single-use tokens (ADR 0054) and the step-up on the session's row, in Kysely's builder compiled once
 * (`compiled`). Each method is one synchronous step, so atomic here (one process holds the file): a
 * put's check of the generation, its replacement of the slot and its trim run with nothing between.
 */
import { sql, type Selectable } from 'kysely';
import type { OneTimeToken, OneTimeTokenPurpose, Repositories, StepUp } from '@sl-accounts/service/core';
import { compiled, type Unit } from './database.ts';
import type { Database } from './schema.ts';

const TOKEN = ['digest', 'purpose', 'user_id', 'credential_generation', 'email', 'data', 'failures', 'created_at', 'expires_at'] as const;
/** Whether `purpose` is one of a JSON array's (one statement whatever their number). */
const among = (purposes: string) => sql<boolean>`purpose in (select value from json_each(${purposes}))`;

const atGeneration = compiled(2, (db, userId: number, generation: number) => db.selectFrom('users').select('id').where('id', '=', userId).where('credential_generation', '=', generation));
const userExists = compiled(1, (db, userId: number) => db.selectFrom('users').select('id').where('id', '=', userId));
// The token with the digest, and the one in the slot (a null slot matches none).
const vacate = compiled(2, (db, digest: string, slot: string | null) => db.deleteFrom('one_time_tokens').where((eb) => eb.or([eb('digest', '=', digest), eb('slot', '=', slot)])));
const insertToken = compiled(10, (db, digest: string, purpose: OneTimeTokenPurpose, userId: number | null, generation: number | null, email: string | null, data: string | null, failures: number, slot: string | null, createdAt: Date, expiresAt: Date) =>
  db.insertInto('one_time_tokens').values({ digest, purpose, user_id: userId, credential_generation: generation, email, data, failures, slot, created_at: createdAt, expires_at: expiresAt }),
);
// The account's newest `count` of these purposes stay (by creation time, then the greater digest).
const trim = compiled(3, (db, userId: number, purposes: string, count: number) =>
  db
    .deleteFrom('one_time_tokens')
    .where('user_id', '=', userId)
    .where(among(purposes))
    .where('digest', 'not in', db.selectFrom('one_time_tokens').select('digest').where('user_id', '=', userId).where(among(purposes)).orderBy('created_at', 'desc').orderBy('digest', 'desc').limit(count)),
);
const take = compiled(3, (db, digest: string, now: Date, purposes: string) => db.deleteFrom('one_time_tokens').where('digest', '=', digest).where('expires_at', '>', now as never).where(among(purposes)).returning(TOKEN));
/** Deletes the tokens expired at `now`, answering the purpose of each. */
export const expiredTokens = compiled(1, (db, now: Date) => db.deleteFrom('one_time_tokens').where('expires_at', '<=', now as never).returning('purpose'));

const recordStepUp = compiled(3, (db, kind: StepUp['kind'], at: Date, digest: string) => db.updateTable('sessions').set({ step_up_kind: kind, step_up_at: at }).where('token_digest', '=', digest));
const findStepUp = compiled(1, (db, digest: string) => db.selectFrom('sessions').select(['step_up_kind', 'step_up_at']).where('token_digest', '=', digest));

const toToken = (r: Pick<Selectable<Database['one_time_tokens']>, (typeof TOKEN)[number]>): OneTimeToken => ({
  digest: r.digest, purpose: r.purpose, userId: r.user_id, credentialGeneration: r.credential_generation, email: r.email, data: r.data,
  failures: r.failures, createdAt: new Date(r.created_at), expiresAt: new Date(r.expires_at),
});

/** The single-use tokens, and the sessions' step-up methods, on one unit. */
export function tokenRepositories({ step }: Unit): Pick<Repositories, 'oneTimeTokens'> & Pick<Repositories['sessions'], 'recordStepUp' | 'findStepUp'> {
  return {
    oneTimeTokens: {
      put: (t, options = {}) =>
        step((run) => {
          if (options.underGeneration && (t.userId === null || t.credentialGeneration === null || atGeneration.all(run, t.userId, t.credentialGeneration).length === 0)) return false;
          // A token of an account deleted meanwhile: nothing (the foreign key would fail the statement).
          if (t.userId !== null && userExists.all(run, t.userId).length === 0) return false;
          const slot = options.slot ?? null;
          vacate.changes(run, t.digest, slot);
          insertToken.changes(run, t.digest, t.purpose, t.userId, t.credentialGeneration, t.email, t.data, t.failures, slot, t.createdAt, t.expiresAt);
          if (options.keepNewest && t.userId !== null) trim.changes(run, t.userId, JSON.stringify(options.keepNewest.purposes), options.keepNewest.count);
          return true;
        }),
      take: (purposes, digest, now) => step((run) => take.all(run, digest, now, JSON.stringify(typeof purposes === 'string' ? [purposes] : purposes)).map(toToken)[0] ?? null),
    },
    recordStepUp: (digest, kind, at) => step((run) => recordStepUp.changes(run, kind, at, digest) > 0),
    findStepUp: (digest) =>
      step((run) => findStepUp.all(run, digest).map((r) => (r.step_up_kind === null || r.step_up_at === null ? null : { kind: r.step_up_kind, verifiedAt: new Date(r.step_up_at) }))[0] ?? null),
  };
}
