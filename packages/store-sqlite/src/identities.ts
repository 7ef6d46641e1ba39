/**
 * Identities at identity providers (issue 42; docs/decisions/0056-identity-linking.md): unique by
 * issuer and subject (the primary key), one per account and provider (a unique index), gone with the
 * account (the foreign key cascades). Each method is one statement.
 */
import type { Identity, IdentityRepository } from '@sl-accounts/service/core';
import { compiled, type Unit } from './database.ts';

const IDENTITY = ['issuer', 'subject', 'provider', 'user_id', 'email', 'linked_at'] as const;
// From the user's row at the generation the caller read; either unique index taken inserts nothing
// (ON CONFLICT DO NOTHING without a target covers both).
const insertIdentity = compiled(7, (db, issuer: string, subject: string, provider: string, email: string | null, linkedAt: Date, userId: number, generation: number) =>
  db
    .insertInto('identities')
    .columns([...IDENTITY])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select([eb.val(issuer).as('i'), eb.val(subject).as('s'), eb.val(provider).as('p'), 'id', eb.val(email).as('e'), eb.val(linkedAt as never).as('l')])
        .where('id', '=', userId)
        .where('credential_generation', '=', generation),
    )
    .onConflict((oc) => oc.doNothing())
    .returning('issuer'),
);
const identityOf = compiled(2, (db, issuer: string, subject: string) => db.selectFrom('identities').select(IDENTITY).where('issuer', '=', issuer).where('subject', '=', subject));
const identitiesOf = compiled(1, (db, userId: number) => db.selectFrom('identities').select(IDENTITY).where('user_id', '=', userId).orderBy('linked_at').orderBy('provider'));
const deleteIdentity = compiled(2, (db, userId: number, provider: string) => db.deleteFrom('identities').where('user_id', '=', userId).where('provider', '=', provider).returning('issuer'));

type Row = { issuer: string; subject: string; provider: string; user_id: number; email: string | null; linked_at: number };
const toIdentity = (r: Row): Identity => ({ issuer: r.issuer, subject: r.subject, provider: r.provider, userId: r.user_id, email: r.email, linkedAt: new Date(r.linked_at) });

export function identityRepository({ step }: Unit): IdentityRepository {
  return {
    insert: (i, generation) => step((run) => insertIdentity.all(run, i.issuer, i.subject, i.provider, i.email, i.linkedAt, i.userId, generation).length > 0),
    find: (issuer, subject) => step((run) => identityOf.all(run, issuer, subject).map(toIdentity)[0] ?? null),
    listByUser: (userId) => step((run) => identitiesOf.all(run, userId).map(toIdentity)),
    delete: (userId, provider) => step((run) => deleteIdentity.all(run, userId, provider).length > 0),
  };
}
