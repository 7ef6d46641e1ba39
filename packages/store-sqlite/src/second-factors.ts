/**
 * Second factors' storage (ADRs 43 and 44: TOTP factors, recovery codes) and passkeys' (ADR 45; their
 * challenges, as login challenges, are single-use tokens: tokens.ts), in Kysely's builder compiled once
 * (`compiled`), as the rest of this store. Each method is one synchronous step, so atomic here (one
 * process holds the file).
 */
import type { Selectable } from 'kysely';
import type { Passkey, Repositories, TotpFactor } from '@sl-accounts/service/core';
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
const date = (ms: number) => new Date(ms);
const toPasskey = (r: Selectable<Database['passkeys']>): Passkey => ({
  id: r.id, userId: r.user_id, name: r.name, publicKey: new Uint8Array(r.public_key), counter: r.counter,
  transports: JSON.parse(r.transports) as string[], createdAt: date(r.created_at), lastUsedAt: r.last_used_at === null ? null : date(r.last_used_at),
});
const toTotp = (r: Selectable<Database['totp_factors']>): TotpFactor => ({ userId: r.user_id, sealedSecret: r.sealed_secret, enabled: r.enabled === 1, lastUsedStep: r.last_used_step, createdAt: date(r.created_at) });

/** The repositories of second factors and passkeys, on one unit. */
export function secondFactorRepositories({ step }: Unit): Pick<Repositories, 'totp' | 'recoveryCodes' | 'passkeys'> {
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
    passkeys: {
      insert: (p, generation) => any(insertPasskey, p.id, p.name, p.publicKey, p.counter, JSON.stringify(p.transports), p.createdAt, p.lastUsedAt, p.userId, generation),
      findById: (id) => step((run) => passkeyById.all(run, id).map(toPasskey)[0] ?? null),
      listByUser: (userId) => step((run) => passkeysByUser.all(run, userId).map(toPasskey)),
      rename: (userId, id, name) => any(renamePasskey, name, id, userId),
      delete: (userId, id) => any(deletePasskey, id, userId),
      recordUse: (id, counter, usedAt) => any(recordUse, counter, usedAt, id),
    },
  };
}
