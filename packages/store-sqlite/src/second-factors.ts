/**
 * Second factors' storage (ADRs 43 and 44): TOTP factors, recovery codes, login challenges and
 * step-ups. Plain SQL, as store-postgres writes them: small statements off every hot path but their
 * own, whose compare-and-sets read best in SQL. Each method is one synchronous step, so atomic here.
 */
import type { FactorKind, Repositories } from '@sl-accounts/core';
import type { Runner, Unit } from './database.ts';

// From the user's row, so a user deleted meanwhile gets nothing; a factor that is on stays as it is.
const PUT_PENDING = `insert into totp_factors (user_id, sealed_secret, enabled, last_used_step, created_at)
  select id, ?, 0, null, ? from users where id = ?
  on conflict (user_id) do update set sealed_secret = excluded.sealed_secret, last_used_step = null, created_at = excluded.created_at
  where not totp_factors.enabled returning user_id`;
const FIND_TOTP = 'select user_id, sealed_secret, enabled, last_used_step, created_at from totp_factors where user_id = ?';
const ENABLE_TOTP = 'update totp_factors set enabled = 1, last_used_step = ? where user_id = ? and not enabled and sealed_secret = ? returning user_id';
// The compare-and-set of a code's step.
const USE_STEP = 'update totp_factors set last_used_step = ? where user_id = ? and enabled and (last_used_step is null or last_used_step < ?) returning user_id';
const DELETE_TOTP = 'delete from totp_factors where user_id = ? returning user_id';
const COUNT_ENABLED = 'select count(*) as n from totp_factors where enabled';
const DELETE_CODES = 'delete from recovery_codes where user_id = ?';
const ADD_CODES = 'insert into recovery_codes (user_id, code_digest) select users.id, json_each.value from users, json_each(?) where users.id = ?';
const USE_CODE = 'delete from recovery_codes where user_id = ? and code_digest = ? returning 1';
const COUNT_CODES = 'select count(*) as n from recovery_codes where user_id = ?';
// From the user's row at the challenge's generation (as an e-mail token's put).
const PUT_CHALLENGE = `insert into login_challenges (token_digest, user_id, credential_generation, failures, created_at, expires_at)
  select ?, id, credential_generation, ?, ?, ? from users where id = ? and credential_generation = ?
  on conflict (token_digest) do update set failures = excluded.failures, created_at = excluded.created_at, expires_at = excluded.expires_at
  returning token_digest`;
const TAKE_CHALLENGE = 'delete from login_challenges where token_digest = ? and expires_at > ? returning token_digest, user_id, credential_generation, failures, created_at, expires_at';
const RECORD_STEP_UP = `insert into step_ups (session_digest, kind, verified_at) select token_digest, ?, ? from sessions where token_digest = ?
  on conflict (session_digest) do update set kind = excluded.kind, verified_at = excluded.verified_at returning session_digest`;
const FIND_STEP_UP = 'select kind, verified_at from step_ups where session_digest = ?';
/** Deletes the login challenges expired at `now` (its one value). */
export const DELETE_EXPIRED_CHALLENGES = 'delete from login_challenges where expires_at <= ?';

type Row = Record<string, number | string | null>;
const rows = (run: Runner, text: string, values: readonly unknown[]) => run.all(text, values) as Row[];

/** The four repositories of second factors, on one unit. */
export function secondFactorRepositories({ step }: Unit): Pick<Repositories, 'totp' | 'recoveryCodes' | 'loginChallenges' | 'stepUps'> {
  const any = (text: string, values: readonly unknown[]) => step((run) => rows(run, text, values).length > 0);
  const count = (text: string, values: readonly unknown[]) => step((run) => Number(rows(run, text, values)[0]!.n));
  return {
    totp: {
      putPending: (userId, sealedSecret, createdAt) => any(PUT_PENDING, [sealedSecret, createdAt, userId]),
      find: (userId) =>
        step((run) => {
          const [r] = rows(run, FIND_TOTP, [userId]);
          return r ? { userId: Number(r.user_id), sealedSecret: String(r.sealed_secret), enabled: r.enabled === 1, lastUsedStep: r.last_used_step === null ? null : Number(r.last_used_step), createdAt: new Date(Number(r.created_at)) } : null;
        }),
      enable: (userId, sealedSecret, at) => any(ENABLE_TOTP, [at, userId, sealedSecret]),
      useStep: (userId, at) => any(USE_STEP, [at, userId, at]),
      delete: (userId) => any(DELETE_TOTP, [userId]),
      countEnabled: () => count(COUNT_ENABLED, []),
    },
    recoveryCodes: {
      // Two statements in one synchronous step: nothing runs between them in this process.
      replace: (userId, digests) =>
        step((run) => {
          run.changes(DELETE_CODES, [userId]);
          run.changes(ADD_CODES, [JSON.stringify(digests), userId]);
        }),
      use: (userId, digest) => step((run) => (rows(run, USE_CODE, [userId, digest]).length === 0 ? null : Number(rows(run, COUNT_CODES, [userId])[0]!.n))),
      count: (userId) => count(COUNT_CODES, [userId]),
    },
    loginChallenges: {
      put: (c) => any(PUT_CHALLENGE, [c.tokenDigest, c.failures, c.createdAt, c.expiresAt, c.userId, c.credentialGeneration]),
      take: (tokenDigest, now) =>
        step((run) => {
          const [r] = rows(run, TAKE_CHALLENGE, [tokenDigest, now]);
          return r
            ? { tokenDigest: String(r.token_digest), userId: Number(r.user_id), credentialGeneration: Number(r.credential_generation), failures: Number(r.failures), createdAt: new Date(Number(r.created_at)), expiresAt: new Date(Number(r.expires_at)) }
            : null;
        }),
    },
    stepUps: {
      record: (sessionDigest, kind, at) => any(RECORD_STEP_UP, [kind, at, sessionDigest]),
      find: (sessionDigest) =>
        step((run) => {
          const [r] = rows(run, FIND_STEP_UP, [sessionDigest]);
          return r ? { kind: r.kind as FactorKind, verifiedAt: new Date(Number(r.verified_at)) } : null;
        }),
    },
  };
}
