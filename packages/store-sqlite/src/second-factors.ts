/**
 * Second factors' storage (ADRs 43 and 44: TOTP factors, recovery codes, login challenges and
 * step-ups) and passkeys' with their WebAuthn challenges (ADR 45), in Kysely's builder compiled once
 * (`compiled`), as the rest of this store. Each method is one synchronous step, so atomic here (one
 * process holds the file).
 */
import type { Selectable } from 'kysely';
import { PASSKEY_CHALLENGES_PER_ACCOUNT, type FactorKind, type Passkey, type PasskeyChallengePurpose, type Repositories, type TotpFactor } from '@sl-accounts/service/core';
import { compiled, type Compiled, type Unit } from './database.ts';
import type { Database } from './schema.ts';

const TOTP = ['user_id', 'sealed_secret', 'enabled', 'last_used_step', 'created_at'] as const;
// From the user's row, so a user deleted meanwhile gets nothing; a factor that is on stays as it is.
// (SQLite needs the SELECT's WHERE to read ON CONFLICT as the upsert's: it has one.)
const putPending = compiled(3, (db, sealedSecret: string, createdAt: Date, userId: number) =>
  db
    .insertInto('totp_factors')
    .columns(['user_id', 'sealed_secret', 'enabled', 'created_at'])
    .expression((eb) => eb.selectFrom('users').select(['id', eb.val(sealedSecret).as('s'), eb.lit(0).as('e'), eb.val(createdAt as never).as('c')]).where('id', '=', userId))
    .onConflict((oc) =>
      oc
        .column('user_id')
        .doUpdateSet((eb) => ({ sealed_secret: eb.ref('excluded.sealed_secret'), last_used_step: null, created_at: eb.ref('excluded.created_at') }))
        .where('totp_factors.enabled', '=', 0),
    )
    .returning('user_id'),
);
const findTotp = compiled(1, (db, userId: number) => db.selectFrom('totp_factors').select(TOTP).where('user_id', '=', userId));
const enableTotp = compiled(3, (db, step: number, userId: number, sealedSecret: string) =>
  db.updateTable('totp_factors').set({ enabled: 1, last_used_step: step }).where('user_id', '=', userId).where('enabled', '=', 0).where('sealed_secret', '=', sealedSecret).returning('user_id'),
);
// The compare-and-set of a code's step.
const useStep = compiled(2, (db, userId: number, step: number) =>
  db
    .updateTable('totp_factors')
    .set({ last_used_step: step })
    .where('user_id', '=', userId)
    .where('enabled', '=', 1)
    .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
    .returning('user_id'),
);
const deleteTotp = compiled(1, (db, userId: number) => db.deleteFrom('totp_factors').where('user_id', '=', userId).returning('user_id'));
const countEnabled = compiled(0, (db) => db.selectFrom('totp_factors').select((eb) => eb.fn.countAll<number>().as('n')).where('enabled', '=', 1));
// Once per start: a scan of the factors is cheap next to the start itself.
const newestTotp = compiled(0, (db) => db.selectFrom('totp_factors').select(TOTP).orderBy('created_at', 'desc').orderBy('user_id', 'desc').limit(1));

const deleteCodes = compiled(1, (db, userId: number) => db.deleteFrom('recovery_codes').where('user_id', '=', userId));
// From the user's row (a user deleted meanwhile gets none), the digests one JSON array: one statement
// whatever their number. `json_each` is a table-valued function, named through the builder's `fn`.
const addCodes = compiled(2, (db, digests: string, userId: number) =>
  db
    .insertInto('recovery_codes')
    .columns(['user_id', 'code_digest'])
    .expression((eb) =>
      eb
        .selectFrom(['users', eb.fn<{ value: string }>('json_each', [eb.val(digests)]).as('codes')])
        .select(['users.id', eb.ref('codes.value' as never).as('d')])
        .where('users.id', '=', userId),
    ),
);
const useCode = compiled(2, (db, userId: number, digest: string) => db.deleteFrom('recovery_codes').where('user_id', '=', userId).where('code_digest', '=', digest).returning('user_id'));
const countCodes = compiled(1, (db, userId: number) => db.selectFrom('recovery_codes').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId));

const CHALLENGE = ['token_digest', 'user_id', 'credential_generation', 'failures', 'created_at', 'expires_at'] as const;
// From the user's row at the challenge's generation (as an e-mail token's put).
const putChallenge = compiled(6, (db, tokenDigest: string, failures: number, createdAt: Date, expiresAt: Date, userId: number, generation: number) =>
  db
    .insertInto('login_challenges')
    .columns([...CHALLENGE])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select([eb.val(tokenDigest).as('t'), 'id', 'credential_generation', eb.val(failures).as('f'), eb.val(createdAt as never).as('c'), eb.val(expiresAt as never).as('e')])
        .where('id', '=', userId)
        .where('credential_generation', '=', generation),
    )
    .onConflict((oc) => oc.column('token_digest').doUpdateSet((eb) => ({ failures: eb.ref('excluded.failures'), created_at: eb.ref('excluded.created_at'), expires_at: eb.ref('excluded.expires_at') })))
    .returning('token_digest'),
);
const takeChallenge = compiled(2, (db, tokenDigest: string, now: Date) => db.deleteFrom('login_challenges').where('token_digest', '=', tokenDigest).where('expires_at', '>', now as never).returning(CHALLENGE));
const recordStepUp = compiled(3, (db, kind: FactorKind, at: Date, sessionDigest: string) =>
  db
    .insertInto('step_ups')
    .columns(['session_digest', 'kind', 'verified_at'])
    .expression((eb) => eb.selectFrom('sessions').select(['token_digest', eb.val(kind).as('k'), eb.val(at as never).as('v')]).where('token_digest', '=', sessionDigest))
    .onConflict((oc) => oc.column('session_digest').doUpdateSet((eb) => ({ kind: eb.ref('excluded.kind'), verified_at: eb.ref('excluded.verified_at') })))
    .returning('session_digest'),
);
const findStepUp = compiled(1, (db, sessionDigest: string) => db.selectFrom('step_ups').select(['kind', 'verified_at']).where('session_digest', '=', sessionDigest));

const PASSKEY = ['id', 'user_id', 'name', 'public_key', 'counter', 'transports', 'created_at', 'last_used_at'] as const;
// From the user's row at the generation the caller read; an id stored already (any account's) inserts nothing.
const insertPasskey = compiled(9, (db, id: string, name: string, publicKey: Uint8Array, counter: number, transports: string, createdAt: Date, lastUsedAt: Date | null, userId: number, generation: number) =>
  db
    .insertInto('passkeys')
    .columns([...PASSKEY])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select([eb.val(id).as('i'), 'id', eb.val(name).as('n'), eb.val(publicKey).as('k'), eb.val(counter).as('c'), eb.val(transports).as('t'), eb.val(createdAt as never).as('a'), eb.val(lastUsedAt as never).as('u')])
        .where('id', '=', userId)
        .where('credential_generation', '=', generation),
    )
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id'),
);
const passkeyById = compiled(1, (db, id: string) => db.selectFrom('passkeys').select(PASSKEY).where('id', '=', id));
const passkeysByUser = compiled(1, (db, userId: number) => db.selectFrom('passkeys').select(PASSKEY).where('user_id', '=', userId).orderBy('created_at').orderBy('id'));
const renamePasskey = compiled(3, (db, name: string, id: string, userId: number) => db.updateTable('passkeys').set({ name }).where('id', '=', id).where('user_id', '=', userId).returning('id'));
const deletePasskey = compiled(2, (db, id: string, userId: number) => db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).returning('id'));
const recordUse = compiled(3, (db, counter: number, usedAt: Date, id: string) =>
  db
    .updateTable('passkeys')
    .set({ counter, last_used_at: usedAt })
    .where('id', '=', id)
    // Forward only; or 0 and 0, an authenticator that does not count.
    .where((eb) => eb.or([eb('counter', '<', counter), eb.and([eb('counter', '=', 0), eb(eb.val(counter), '=', 0)])]))
    .returning('id'),
);
const putPasskeyChallenge = compiled(5, (db, digest: string, purpose: PasskeyChallengePurpose, userId: number | null, createdAt: Date, expiresAt: Date) =>
  db.insertInto('passkey_challenges').values({ digest, purpose, user_id: userId, created_at: createdAt, expires_at: expiresAt }),
);
// The account's newest PASSKEY_CHALLENGES_PER_ACCOUNT stay (one connection: nothing runs between the insert and this).
const trimPasskeyChallenges = compiled(1, (db, userId: number) =>
  db
    .deleteFrom('passkey_challenges')
    .where('user_id', '=', userId)
    .where('digest', 'not in', db.selectFrom('passkey_challenges').select('digest').where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('digest', 'desc').limit(PASSKEY_CHALLENGES_PER_ACCOUNT)),
);
const takePasskeyChallenge = compiled(2, (db, digest: string, now: Date) =>
  db.deleteFrom('passkey_challenges').where('digest', '=', digest).where('expires_at', '>', now as never).returning(['digest', 'purpose', 'user_id', 'created_at', 'expires_at']),
);

/** Deletes the login and WebAuthn challenges expired at `now`. */
export const DELETE_EXPIRED = {
  loginChallenges: compiled(1, (db, now: Date) => db.deleteFrom('login_challenges').where('expires_at', '<=', now as never)),
  passkeyChallenges: compiled(1, (db, now: Date) => db.deleteFrom('passkey_challenges').where('expires_at', '<=', now as never)),
} as const;

const date = (ms: number) => new Date(ms);
const toPasskey = (r: Selectable<Database['passkeys']>): Passkey => ({
  id: r.id, userId: r.user_id, name: r.name, publicKey: new Uint8Array(r.public_key), counter: r.counter,
  transports: JSON.parse(r.transports) as string[], createdAt: date(r.created_at), lastUsedAt: r.last_used_at === null ? null : date(r.last_used_at),
});
const toTotp = (r: Selectable<Database['totp_factors']>): TotpFactor => ({ userId: r.user_id, sealedSecret: r.sealed_secret, enabled: r.enabled === 1, lastUsedStep: r.last_used_step, createdAt: date(r.created_at) });

/** The repositories of second factors and passkeys, on one unit. */
export function secondFactorRepositories({ step }: Unit): Pick<Repositories, 'totp' | 'recoveryCodes' | 'loginChallenges' | 'stepUps' | 'passkeys' | 'passkeyChallenges'> {
  /** Whether the statement answered a row. */
  const any = <P extends readonly unknown[]>(statement: Compiled<unknown, P>, ...values: P) => step((run) => statement.all(run, ...values).length > 0);
  return {
    totp: {
      putPending: (userId, sealedSecret, createdAt) => any(putPending, sealedSecret, createdAt, userId),
      find: (userId) => step((run) => findTotp.all(run, userId).map(toTotp)[0] ?? null),
      enable: (userId, sealedSecret, at) => any(enableTotp, at, userId, sealedSecret),
      useStep: (userId, at) => any(useStep, userId, at),
      delete: (userId) => any(deleteTotp, userId),
      countEnabled: () => step((run) => countEnabled.all(run)[0]!.n),
      newest: () => step((run) => newestTotp.all(run).map(toTotp)[0] ?? null),
    },
    recoveryCodes: {
      // Two statements in one synchronous step: nothing runs between them in this process.
      replace: (userId, digests) =>
        step((run) => {
          deleteCodes.changes(run, userId);
          addCodes.changes(run, JSON.stringify(digests), userId);
        }),
      use: (userId, digest) => step((run) => (useCode.all(run, userId, digest).length === 0 ? null : countCodes.all(run, userId)[0]!.n)),
      count: (userId) => step((run) => countCodes.all(run, userId)[0]!.n),
    },
    loginChallenges: {
      put: (c) => any(putChallenge, c.tokenDigest, c.failures, c.createdAt, c.expiresAt, c.userId, c.credentialGeneration),
      take: (tokenDigest, now) =>
        step(
          (run) =>
            takeChallenge.all(run, tokenDigest, now).map((r) => ({ tokenDigest: r.token_digest, userId: r.user_id, credentialGeneration: r.credential_generation, failures: r.failures, createdAt: date(r.created_at), expiresAt: date(r.expires_at) }))[0] ?? null,
        ),
    },
    stepUps: {
      record: (sessionDigest, kind, at) => any(recordStepUp, kind, at, sessionDigest),
      find: (sessionDigest) => step((run) => findStepUp.all(run, sessionDigest).map((r) => ({ kind: r.kind, verifiedAt: date(r.verified_at) }))[0] ?? null),
    },
    passkeys: {
      insert: (p, generation) => any(insertPasskey, p.id, p.name, p.publicKey, p.counter, JSON.stringify(p.transports), p.createdAt, p.lastUsedAt, p.userId, generation),
      findById: (id) => step((run) => passkeyById.all(run, id).map(toPasskey)[0] ?? null),
      listByUser: (userId) => step((run) => passkeysByUser.all(run, userId).map(toPasskey)),
      rename: (userId, id, name) => any(renamePasskey, name, id, userId),
      delete: (userId, id) => any(deletePasskey, id, userId),
      recordUse: (id, counter, usedAt) => any(recordUse, counter, usedAt, id),
    },
    passkeyChallenges: {
      put: (c) =>
        step((run) => {
          putPasskeyChallenge.changes(run, c.digest, c.purpose, c.userId, c.createdAt, c.expiresAt);
          if (c.userId !== null) trimPasskeyChallenges.changes(run, c.userId);
        }),
      take: (digest, now) =>
        step((run) => takePasskeyChallenge.all(run, digest, now).map((r) => ({ digest: r.digest, purpose: r.purpose, userId: r.user_id, createdAt: date(r.created_at), expiresAt: date(r.expires_at) }))[0] ?? null),
    },
  };
}
