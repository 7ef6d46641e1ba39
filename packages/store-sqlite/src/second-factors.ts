/**
 * Second factors' storage (ADRs 43 and 44: TOTP factors, recovery codes, login challenges and
 * step-ups) and passkeys' with their WebAuthn challenges (ADR 45). Plain SQL, as store-postgres writes
 * them: small statements off every hot path but their own, whose compare-and-sets read best in SQL.
 * Each method is one synchronous step, so atomic here (one process holds the file).
 */
import { PASSKEY_CHALLENGES_PER_ACCOUNT, type FactorKind, type Passkey, type PasskeyChallengePurpose, type Repositories, type TotpFactor } from '@sl-accounts/core';
import type { Unit } from './database.ts';

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
// Once per start: a scan of the factors is cheap next to the start itself.
const NEWEST_TOTP = 'select user_id, sealed_secret, enabled, last_used_step, created_at from totp_factors order by created_at desc, user_id desc limit 1';
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

const PASSKEY = 'id, user_id, name, public_key, counter, transports, created_at, last_used_at';
// From the user's row at the generation the caller read; an id stored already (any account's) inserts nothing.
const INSERT_PASSKEY = `insert into passkeys (${PASSKEY}) select ?, id, ?, ?, ?, ?, ?, ? from users where id = ? and credential_generation = ?
  on conflict (id) do nothing returning id`;
const PASSKEY_BY_ID = `select ${PASSKEY} from passkeys where id = ?`;
const PASSKEYS_BY_USER = `select ${PASSKEY} from passkeys where user_id = ? order by created_at, id`;
const RENAME_PASSKEY = 'update passkeys set name = ? where id = ? and user_id = ? returning id';
const DELETE_PASSKEY = 'delete from passkeys where id = ? and user_id = ? returning id';
// Forward only; or 0 and 0, an authenticator that does not count.
const RECORD_USE = 'update passkeys set counter = ?, last_used_at = ? where id = ? and (counter < ? or (counter = 0 and ? = 0)) returning id';
const PUT_PASSKEY_CHALLENGE = 'insert into passkey_challenges (digest, purpose, user_id, created_at, expires_at) values (?, ?, ?, ?, ?)';
// The account's newest PASSKEY_CHALLENGES_PER_ACCOUNT stay (one connection: nothing runs between the insert and this).
const TRIM_PASSKEY_CHALLENGES = `delete from passkey_challenges where user_id = ? and digest not in (select digest from passkey_challenges where user_id = ? order by created_at desc, digest desc limit ${PASSKEY_CHALLENGES_PER_ACCOUNT})`;
const TAKE_PASSKEY_CHALLENGE = 'delete from passkey_challenges where digest = ? and expires_at > ? returning digest, purpose, user_id, created_at, expires_at';

/** Deletes the login and WebAuthn challenges expired at `now` (their one value). */
export const DELETE_EXPIRED = { loginChallenges: 'delete from login_challenges where expires_at <= ?', passkeyChallenges: 'delete from passkey_challenges where expires_at <= ?' } as const;

type Row = Record<string, number | string | Uint8Array | null>;
const date = (value: unknown) => new Date(Number(value));
const toPasskey = (r: Row): Passkey => ({
  id: String(r.id), userId: Number(r.user_id), name: String(r.name), publicKey: new Uint8Array(r.public_key as Uint8Array), counter: Number(r.counter),
  transports: JSON.parse(String(r.transports)) as string[], createdAt: date(r.created_at), lastUsedAt: r.last_used_at === null ? null : date(r.last_used_at),
});

const toTotp = (r: Row): TotpFactor => ({ userId: Number(r.user_id), sealedSecret: String(r.sealed_secret), enabled: r.enabled === 1, lastUsedStep: r.last_used_step === null ? null : Number(r.last_used_step), createdAt: date(r.created_at) });

/** The repositories of second factors and passkeys, on one unit. */
export function secondFactorRepositories({ step }: Unit): Pick<Repositories, 'totp' | 'recoveryCodes' | 'loginChallenges' | 'stepUps' | 'passkeys' | 'passkeyChallenges'> {
  const rows = (text: string, values: readonly unknown[]) => step((run) => run.all(text, values) as Row[]);
  const any = async (text: string, values: readonly unknown[]) => (await rows(text, values)).length > 0;
  const count = async (text: string, values: readonly unknown[]) => Number((await rows(text, values))[0]!.n);
  /** The first row (if any) as `map` reads it, else null. */
  const first = async <T>(text: string, values: readonly unknown[], map: (r: Row) => T) => (await rows(text, values)).map(map)[0] ?? null;
  return {
    totp: {
      putPending: (userId, sealedSecret, createdAt) => any(PUT_PENDING, [sealedSecret, createdAt, userId]),
      find: (userId) => first(FIND_TOTP, [userId], toTotp),
      enable: (userId, sealedSecret, at) => any(ENABLE_TOTP, [at, userId, sealedSecret]),
      useStep: (userId, at) => any(USE_STEP, [at, userId, at]),
      delete: (userId) => any(DELETE_TOTP, [userId]),
      countEnabled: () => count(COUNT_ENABLED, []),
      newest: () => first(NEWEST_TOTP, [], toTotp),
    },
    recoveryCodes: {
      // Two statements in one synchronous step: nothing runs between them in this process.
      replace: (userId, digests) =>
        step((run) => {
          run.changes(DELETE_CODES, [userId]);
          run.changes(ADD_CODES, [JSON.stringify(digests), userId]);
        }),
      use: (userId, digest) => step((run) => (run.all(USE_CODE, [userId, digest]).length === 0 ? null : Number((run.all(COUNT_CODES, [userId]) as Row[])[0]!.n))),
      count: (userId) => count(COUNT_CODES, [userId]),
    },
    loginChallenges: {
      put: (c) => any(PUT_CHALLENGE, [c.tokenDigest, c.failures, c.createdAt, c.expiresAt, c.userId, c.credentialGeneration]),
      take: (tokenDigest, now) =>
        first(TAKE_CHALLENGE, [tokenDigest, now], (r) => ({ tokenDigest: String(r.token_digest), userId: Number(r.user_id), credentialGeneration: Number(r.credential_generation), failures: Number(r.failures), createdAt: date(r.created_at), expiresAt: date(r.expires_at) })),
    },
    stepUps: {
      record: (sessionDigest, kind, at) => any(RECORD_STEP_UP, [kind, at, sessionDigest]),
      find: (sessionDigest) => first(FIND_STEP_UP, [sessionDigest], (r) => ({ kind: r.kind as FactorKind, verifiedAt: date(r.verified_at) })),
    },
    passkeys: {
      insert: (p, generation) => any(INSERT_PASSKEY, [p.id, p.name, p.publicKey, p.counter, JSON.stringify(p.transports), p.createdAt, p.lastUsedAt, p.userId, generation]),
      findById: (id) => first(PASSKEY_BY_ID, [id], toPasskey),
      listByUser: async (userId) => (await rows(PASSKEYS_BY_USER, [userId])).map(toPasskey),
      rename: (userId, id, name) => any(RENAME_PASSKEY, [name, id, userId]),
      delete: (userId, id) => any(DELETE_PASSKEY, [id, userId]),
      recordUse: (id, counter, usedAt) => any(RECORD_USE, [counter, usedAt, id, counter, counter]),
    },
    passkeyChallenges: {
      put: (c) =>
        step((run) => {
          run.changes(PUT_PASSKEY_CHALLENGE, [c.digest, c.purpose, c.userId, c.createdAt, c.expiresAt]);
          if (c.userId !== null) run.changes(TRIM_PASSKEY_CHALLENGES, [c.userId, c.userId]);
        }),
      take: (digest, now) =>
        first(TAKE_PASSKEY_CHALLENGE, [digest, now], (r) => ({ digest: String(r.digest), purpose: r.purpose as PasskeyChallengePurpose, userId: r.user_id === null ? null : Number(r.user_id), createdAt: date(r.created_at), expiresAt: date(r.expires_at) })),
    },
  };
}
