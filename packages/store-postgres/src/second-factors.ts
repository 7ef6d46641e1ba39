/**
 * Second factors' storage (docs/decisions/0043 and 0044): TOTP factors, recovery codes, login
 * challenges and step-ups, in Kysely's builder compiled once (`statement`), as the rest of this store.
 */
import type { RecoveryCodeRepository, TotpFactor, TotpRepository } from '@sl-accounts/service/core';
import { statement } from './compiled.ts';
import type { Unit } from './unit.ts';

const TOTP = ['user_id', 'sealed_secret', 'enabled', 'last_used_step', 'created_at'] as const;
interface TotpRow {
  readonly user_id: number;
  readonly sealed_secret: string;
  readonly enabled: boolean;
  readonly last_used_step: string | number | null;
  readonly created_at: Date;
}

// From the user's row, so a user deleted meanwhile gets nothing; a factor that is on stays as it is.
const putPending = statement(3, (db, userId: number, sealedSecret: string, createdAt: Date) =>
  db
    .insertInto('totp_factors')
    .columns(['user_id', 'sealed_secret', 'enabled', 'created_at'])
    // The user's row shared-locked, as a session's insert takes it: a deletion under way is waited
    // for, and then the row is gone and nothing is inserted (without it, the insert saw the row, and
    // the foreign key failed once the deletion committed: a 500 where the answer is "no such user").
    .expression((eb) => eb.selectFrom('users').select(['id', eb.val(sealedSecret).as('sealed_secret'), eb.lit(false).as('enabled'), eb.val(createdAt).as('created_at')]).where('id', '=', userId).forShare())
    .onConflict((oc) =>
      oc
        .column('user_id')
        .doUpdateSet((eb) => ({ sealed_secret: eb.ref('excluded.sealed_secret'), last_used_step: eb.lit(null), created_at: eb.ref('excluded.created_at') }))
        .where((eb) => eb.not(eb.ref('totp_factors.enabled'))),
    )
    .returning('user_id'),
);
const findTotp = statement(1, (db, userId: number) => db.selectFrom('totp_factors').select(TOTP).where('user_id', '=', userId));
const enableTotp = statement(3, (db, userId: number, sealedSecret: string, step: number) =>
  db
    .updateTable('totp_factors')
    .set((eb) => ({ enabled: eb.lit(true), last_used_step: step }))
    .where('user_id', '=', userId)
    .where((eb) => eb.not(eb.ref('enabled')))
    .where('sealed_secret', '=', sealedSecret)
    .returning('user_id'),
);
// The compare-and-set of a code's step: a concurrent update of the row waits for the lock, then
// evaluates the condition again on the row as the other left it (READ COMMITTED), and finds it used.
const useStep = statement(2, (db, userId: number, step: number) =>
  db
    .updateTable('totp_factors')
    .set({ last_used_step: step })
    .where('user_id', '=', userId)
    .where((eb) => eb.and([eb.ref('enabled'), eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)])]))
    .returning('user_id'),
);
const deleteTotp = statement(1, (db, userId: number) => db.deleteFrom('totp_factors').where('user_id', '=', userId).returning('user_id'));
const countEnabled = statement(0, (db) => db.selectFrom('totp_factors').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).where((eb) => eb.ref('enabled')));
// Once per start: a scan of the factors is cheap next to the start itself.
const newestTotp = statement(0, (db) => db.selectFrom('totp_factors').select(TOTP).orderBy('created_at', 'desc').orderBy('user_id', 'desc').limit(1));

// The old codes go and the new ones come in one statement (the new are random: none equals an old
// one), from the user's row: a user deleted meanwhile gets none.
const replaceCodes = statement(2, (db, userId: number, digests: string) =>
  db
    .with('gone', (q) => q.deleteFrom('recovery_codes').where('user_id', '=', userId).returning('user_id'))
    .insertInto('recovery_codes')
    .columns(['user_id', 'code_digest'])
    .expression((eb) =>
      eb
        .selectFrom(['users', eb.fn<{ value: string }>('json_array_elements_text', [eb.cast(eb.val(digests), 'json')]).as('d')])
        .select(['users.id', eb.ref('d.value' as never).as('code_digest')])
        .where('users.id', '=', userId),
    ),
);
// The count is of the statement's snapshot, before its own delete: `before - used` is what is left.
const useCode = statement(2, (db, userId: number, digest: string) =>
  db
    .with('used', (q) => q.deleteFrom('recovery_codes').where('user_id', '=', userId).where('code_digest', '=', digest).returning('user_id'))
    .selectNoFrom((eb) => [
      eb.selectFrom('used').select((c) => c.cast<number>(c.fn.countAll(), 'integer').as('n')).as('used'),
      eb.selectFrom('recovery_codes').select((c) => c.cast<number>(c.fn.countAll(), 'integer').as('n')).where('user_id', '=', userId).as('before'),
    ]),
);
const countCodes = statement(1, (db, userId: number) => db.selectFrom('recovery_codes').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).where('user_id', '=', userId));

const toTotp = (row: TotpRow): TotpFactor => ({ userId: row.user_id, sealedSecret: row.sealed_secret, enabled: row.enabled, lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step), createdAt: row.created_at });

export function totpRepository({ run }: Unit): TotpRepository {
  return {
    async putPending(userId, sealedSecret, createdAt) {
      return (await putPending(run, userId, sealedSecret, createdAt)).length > 0;
    },
    async find(userId) {
      const [row] = await findTotp(run, userId);
      return row ? toTotp(row) : null;
    },
    async enable(userId, sealedSecret, step) {
      return (await enableTotp(run, userId, sealedSecret, step)).length > 0;
    },
    async useStep(userId, step) {
      return (await useStep(run, userId, step)).length > 0;
    },
    async delete(userId) {
      return (await deleteTotp(run, userId)).length > 0;
    },
    async countEnabled() {
      const [row] = await countEnabled(run);
      return row!.n;
    },
    async newest() {
      const [row] = await newestTotp(run);
      return row ? toTotp(row) : null;
    },
  };
}

export function recoveryCodeRepository({ run }: Unit): RecoveryCodeRepository {
  return {
    async replace(userId, digests) {
      await replaceCodes(run, userId, JSON.stringify(digests));
    },
    async use(userId, digest) {
      // Both counts are of a subquery that always answers one row: never null.
      const [{ used, before }] = (await useCode(run, userId, digest)) as [{ used: number; before: number }];
      return used === 0 ? null : before - used;
    },
    async count(userId) {
      const [row] = await countCodes(run, userId);
      return row!.n;
    },
  };
}
