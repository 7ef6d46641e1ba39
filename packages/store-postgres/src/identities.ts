/**
 * Identities at identity providers (issue 42; docs/decisions/0056-identity-linking.md): unique by
 * issuer and subject (the primary key), one per account and provider (a unique index), gone with the
 * account (the foreign key cascades). Each method is one statement.
 */
import type { Identity, IdentityRepository } from '@sl-accounts/service/core';
import type { Selectable } from 'kysely';
import { statement } from './compiled.ts';
import type { IdentitiesTable } from './database.ts';
import type { Unit } from './unit.ts';

const COLUMNS = ['issuer', 'subject', 'provider', 'user_id', 'email', 'linked_at'] as const;

/** A row as the table declares it (database.ts), not written out again. */
type IdentityRow = Selectable<IdentitiesTable>;

const toIdentity = (r: IdentityRow): Identity => ({ issuer: r.issuer, subject: r.subject, provider: r.provider, userId: r.user_id, email: r.email, linkedAt: r.linked_at });

// From the user's row, locked (as a passkey's insert): a user deleted meanwhile, or whose generation
// moved on, gets no identity. ON CONFLICT DO NOTHING without a target covers both unique indexes: of
// two concurrent inserts of one identity the second waits for the first, then inserts nothing.
const insert = statement(7, (db, issuer: string, subject: string, provider: string, userId: number, email: string | null, linkedAt: Date, generation: number) =>
  db
    .insertInto('identities')
    .columns([...COLUMNS])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select([eb.val(issuer).as('issuer'), eb.val(subject).as('subject'), eb.val(provider).as('provider'), 'id as user_id', eb.val(email).as('email'), eb.val(linkedAt).as('linked_at')])
        .where('id', '=', userId)
        .where('credential_generation', '=', generation)
        .forShare(),
    )
    .onConflict((oc) => oc.doNothing())
    .returning('issuer'),
);
const find = statement(2, (db, issuer: string, subject: string) => db.selectFrom('identities').select([...COLUMNS]).where('issuer', '=', issuer).where('subject', '=', subject));
const listByUser = statement(1, (db, userId: number) => db.selectFrom('identities').select([...COLUMNS]).where('user_id', '=', userId).orderBy('linked_at').orderBy('provider'));
const deleteOne = statement(2, (db, userId: number, provider: string) => db.deleteFrom('identities').where('user_id', '=', userId).where('provider', '=', provider).returning('issuer'));

export function identityRepository({ run }: Unit): IdentityRepository {
  return {
    async insert(i, generation) {
      return (await insert(run, i.issuer, i.subject, i.provider, i.userId, i.email, i.linkedAt, generation)).length > 0;
    },
    async find(issuer, subject) {
      const [row] = await find(run, issuer, subject);
      return row ? toIdentity(row as IdentityRow) : null;
    },
    async listByUser(userId) {
      return (await listByUser(run, userId)).map((row) => toIdentity(row as IdentityRow));
    },
    async delete(userId, provider) {
      return (await deleteOne(run, userId, provider)).length > 0;
    },
  };
}
