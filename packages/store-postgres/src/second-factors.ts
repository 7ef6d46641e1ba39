/**
 * Second factors' storage (docs/decisions/0043 and 0044): TOTP factors, recovery codes, login
 * challenges and step-ups. Plain SQL run as it is written: each statement is small and off the hot
 * path of every request but its own, and the compare-and-sets read best in SQL (Kysely's builder
 * adds nothing here but a second spelling).
 */
import type { FactorKind, LoginChallengeRepository, RecoveryCodeRepository, StepUpRepository, TotpFactor, TotpRepository } from '@sl-accounts/core';
import type { RunStatement } from './compiled.ts';
import type { Unit } from './unit.ts';

interface TotpRow {
  readonly user_id: number;
  readonly sealed_secret: string;
  readonly enabled: boolean;
  readonly last_used_step: string | number | null;
  readonly created_at: Date;
}

interface ChallengeRow {
  readonly token_digest: string;
  readonly user_id: number;
  readonly credential_generation: number;
  readonly failures: number;
  readonly created_at: Date;
  readonly expires_at: Date;
}

const rows = <T>(run: RunStatement, text: string, values: readonly unknown[]) => run(text, values) as Promise<T[]>;

// From the user's row, so a user deleted meanwhile gets nothing; a factor that is on stays as it is.
const PUT_PENDING = `insert into totp_factors (user_id, sealed_secret, enabled, last_used_step, created_at)
  select id, $2, false, null, $3 from users where id = $1
  on conflict (user_id) do update set sealed_secret = excluded.sealed_secret, last_used_step = null, created_at = excluded.created_at
  where not totp_factors.enabled
  returning user_id`;
const FIND_TOTP = 'select user_id, sealed_secret, enabled, last_used_step, created_at from totp_factors where user_id = $1';
const ENABLE_TOTP = 'update totp_factors set enabled = true, last_used_step = $3 where user_id = $1 and not enabled and sealed_secret = $2 returning user_id';
// The compare-and-set of a code's step: a concurrent update of the row waits for the lock, then
// evaluates the condition again on the row as the other left it (READ COMMITTED), and finds it used.
const USE_STEP = 'update totp_factors set last_used_step = $2 where user_id = $1 and enabled and (last_used_step is null or last_used_step < $2) returning user_id';
const DELETE_TOTP = 'delete from totp_factors where user_id = $1 returning user_id';
const COUNT_ENABLED = 'select count(*)::int as n from totp_factors where enabled';
// Once per start: a scan of the factors is cheap next to the start itself.
const NEWEST_TOTP = 'select user_id, sealed_secret, enabled, last_used_step, created_at from totp_factors order by created_at desc, user_id desc limit 1';

// The old codes go and the new ones come in one statement (the new are random: none equals an old one).
const REPLACE_CODES = `with gone as (delete from recovery_codes where user_id = $1)
  insert into recovery_codes (user_id, code_digest)
  select u.id, d.digest from users u, json_array_elements_text($2::json) as d(digest) where u.id = $1`;
// The count is of the statement's snapshot, before its own delete: `before - used` is what is left.
const USE_CODE = `with used as (delete from recovery_codes where user_id = $1 and code_digest = $2 returning 1)
  select (select count(*)::int from used) as used, (select count(*)::int from recovery_codes where user_id = $1) as before`;
const COUNT_CODES = 'select count(*)::int as n from recovery_codes where user_id = $1';

// From the user's row at the challenge's generation, under its share lock (as an e-mail token's put).
const PUT_CHALLENGE = `insert into login_challenges (token_digest, user_id, credential_generation, failures, created_at, expires_at)
  select $1, id, credential_generation, $4, $5, $6 from users where id = $2 and credential_generation = $3 for share
  on conflict (token_digest) do update set failures = excluded.failures, created_at = excluded.created_at, expires_at = excluded.expires_at
  returning token_digest`;
// RETURNING reports the row only to the statement that removed it: of concurrent takes, one gets it.
const TAKE_CHALLENGE = 'delete from login_challenges where token_digest = $1 and expires_at > $2 returning token_digest, user_id, credential_generation, failures, created_at, expires_at';

const RECORD_STEP_UP = `insert into step_ups (session_digest, kind, verified_at)
  select token_digest, $2, $3 from sessions where token_digest = $1
  on conflict (session_digest) do update set kind = excluded.kind, verified_at = excluded.verified_at
  returning session_digest`;
const FIND_STEP_UP = 'select kind, verified_at from step_ups where session_digest = $1';

/** Deletes the login challenges expired at `now`; answers how many. */
export const DELETE_EXPIRED_CHALLENGES = 'with deleted as (delete from login_challenges where expires_at <= $1 returning 1) select count(*)::int as n from deleted';

const toTotp = (row: TotpRow): TotpFactor => ({ userId: row.user_id, sealedSecret: row.sealed_secret, enabled: row.enabled, lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step), createdAt: row.created_at });

export function totpRepository({ run }: Unit): TotpRepository {
  return {
    async putPending(userId, sealedSecret, createdAt) {
      return (await run(PUT_PENDING, [userId, sealedSecret, createdAt])).length > 0;
    },
    async find(userId) {
      const [row] = await rows<TotpRow>(run, FIND_TOTP, [userId]);
      return row ? toTotp(row) : null;
    },
    async enable(userId, sealedSecret, step) {
      return (await run(ENABLE_TOTP, [userId, sealedSecret, step])).length > 0;
    },
    async useStep(userId, step) {
      return (await run(USE_STEP, [userId, step])).length > 0;
    },
    async delete(userId) {
      return (await run(DELETE_TOTP, [userId])).length > 0;
    },
    async countEnabled() {
      const [row] = await rows<{ n: number }>(run, COUNT_ENABLED, []);
      return row!.n;
    },
    async newest() {
      const [row] = await rows<TotpRow>(run, NEWEST_TOTP, []);
      return row ? toTotp(row) : null;
    },
  };
}

export function recoveryCodeRepository({ run }: Unit): RecoveryCodeRepository {
  return {
    async replace(userId, digests) {
      await run(REPLACE_CODES, [userId, JSON.stringify(digests)]);
    },
    async use(userId, digest) {
      const [row] = await rows<{ used: number; before: number }>(run, USE_CODE, [userId, digest]);
      return row!.used === 0 ? null : row!.before - row!.used;
    },
    async count(userId) {
      const [row] = await rows<{ n: number }>(run, COUNT_CODES, [userId]);
      return row!.n;
    },
  };
}

export function loginChallengeRepository({ run }: Unit): LoginChallengeRepository {
  return {
    async put(c) {
      return (await run(PUT_CHALLENGE, [c.tokenDigest, c.userId, c.credentialGeneration, c.failures, c.createdAt, c.expiresAt])).length > 0;
    },
    async take(tokenDigest, now) {
      const [row] = await rows<ChallengeRow>(run, TAKE_CHALLENGE, [tokenDigest, now]);
      if (!row) return null;
      return { tokenDigest: row.token_digest, userId: row.user_id, credentialGeneration: row.credential_generation, failures: row.failures, createdAt: row.created_at, expiresAt: row.expires_at };
    },
  };
}

export function stepUpRepository({ run }: Unit): StepUpRepository {
  return {
    async record(sessionDigest, kind, at) {
      return (await run(RECORD_STEP_UP, [sessionDigest, kind, at])).length > 0;
    },
    async find(sessionDigest) {
      const [row] = await rows<{ kind: FactorKind; verified_at: Date }>(run, FIND_STEP_UP, [sessionDigest]);
      return row ? { kind: row.kind, verifiedAt: row.verified_at } : null;
    },
  };
}
