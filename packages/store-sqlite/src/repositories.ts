import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import { EmailTaken, type MailKind, type Repositories, type UserChanges, type UserExpectation, type UserRecord } from '@sl-accounts/service/core';
import { compiled, isUniqueViolation, type Compiled, type Unit } from './database.ts';
import type { Database } from './schema.ts';
import { secondFactorRepositories } from './second-factors.ts';
import { identityRepository } from './identities.ts';
import { activityRepository } from './activity.ts';
import { tokenRepositories } from './tokens.ts';

const date = (ms: number) => new Date(ms);

export const RECORD = ['id', 'name', 'email', 'email_verified', 'password_hash', 'credential_generation', 'locked'] as const;
export type RecordRow = Pick<Selectable<Database['users']>, (typeof RECORD)[number]>;
export const toRecord = (row: RecordRow): UserRecord => ({
  id: row.id,
  name: row.name,
  email: row.email,
  emailVerified: row.email_verified === 1,
  passwordHash: row.password_hash,
  credentialGeneration: row.credential_generation,
  // Left out when unlocked (UserRecord.locked).
  ...(row.locked === 1 ? { locked: true } : {}),
});

// ON CONFLICT DO NOTHING without a target covers the unique index on lower(email): a taken address
// yields no row (and no error), and the unit of work goes on.
const insertUser = compiled(4, (db, name: string, email: string, hash: string, createdAt: Date) =>
  db.insertInto('users').values({ name, email, password_hash: hash, created_at: createdAt }).onConflict((oc) => oc.doNothing()).returning(RECORD),
);
// The unique index's expression, so the lookup uses it.
const userByEmail = compiled(1, (db, email: string) => db.selectFrom('users').select(RECORD).where(sql`lower(email)`, '=', sql`lower(${email})`));
const userById = compiled(1, (db, id: number) => db.selectFrom('users').select(RECORD).where('id', '=', id));
const deleteUser = compiled(1, (db, id: number) => db.deleteFrom('users').where('id', '=', id));
const digestsOf = compiled(1, (db, userId: number) => db.selectFrom('sessions').select('token_digest').where('user_id', '=', userId));

const COLUMNS = { name: 'name', email: 'email', emailVerified: 'email_verified', passwordHash: 'password_hash', credentialGeneration: 'credential_generation', locked: 'locked' } as const;
const FIELDS = Object.keys(COLUMNS) as (keyof typeof COLUMNS)[];
const EXPECTED = ['credentialGeneration', 'email', 'emailVerified'] as const;
/** Each shape of update (the fields it sets, those it expects), compiled when first used. */
const updates = new Map<string, Compiled<RecordRow, unknown[]>>();

function updateOf(changes: UserChanges, expected: UserExpectation) {
  const set = FIELDS.filter((f) => changes[f] !== undefined);
  const where = EXPECTED.filter((f) => expected[f] !== undefined);
  const key = `${set.join()}|${where.join()}`;
  let update = updates.get(key);
  if (!update) {
    update = compiled(1 + set.length + where.length, (db, id, ...values: unknown[]) => {
      let query = db.updateTable('users').set(Object.fromEntries(set.map((f, i) => [COLUMNS[f], values[i]]))).where('id', '=', id as number);
      for (const [i, f] of where.entries()) query = query.where(COLUMNS[f], '=', values[set.length + i] as never);
      return query.returning(RECORD);
    });
    updates.set(key, update);
  }
  return { update, values: [...set.map((f) => changes[f]), ...where.map((f) => expected[f])] };
}

// The session exists only if its user does, at that generation: one statement, so atomic here.
const insertSession = compiled(6, (db, digest: string, id: string, userId: number, generation: number, createdAt: Date, expiresAt: Date) =>
  db
    .insertInto('sessions')
    .columns(['token_digest', 'id', 'user_id', 'created_at', 'expires_at'])
    .expression((eb) =>
      eb.selectFrom('users').select([eb.val(digest).as('d'), eb.val(id).as('i'), 'id', eb.val(createdAt as never).as('c'), eb.val(expiresAt as never).as('e')]).where('id', '=', userId).where('credential_generation', '=', generation),
    )
    .returning('token_digest'),
);
const sessionWithUser = compiled(1, (db, digest: string) =>
  db.selectFrom('sessions').innerJoin('users', 'users.id', 'sessions.user_id').select(['users.id', 'users.name', 'users.email', 'users.email_verified', 'sessions.expires_at']).where('sessions.token_digest', '=', digest),
);
const sessionsOf = compiled(2, (db, userId: number, now: Date) =>
  db.selectFrom('sessions').select(['id', 'token_digest', 'created_at', 'expires_at']).where('user_id', '=', userId).where('expires_at', '>', now as never).orderBy('created_at').orderBy('id'),
);
const deleteSession = compiled(1, (db, digest: string) => db.deleteFrom('sessions').where('token_digest', '=', digest).returning('expires_at'));
// `except` '' names no session: a digest is 64 hex digits (a check constraint).
const deleteAllBut = compiled(2, (db, userId: number, except: string) => db.deleteFrom('sessions').where('user_id', '=', userId).where('token_digest', '<>', except).returning('token_digest'));
const deleteOldest = compiled(3, (db, userId: number, except: string, keep: number) =>
  db
    .deleteFrom('sessions')
    .where('token_digest', 'in', (q) =>
      // SQLite takes an OFFSET only after a LIMIT; -1 is none.
      q.selectFrom('sessions').select('token_digest').where('user_id', '=', userId).where('token_digest', '<>', except).orderBy('created_at', 'desc').orderBy('token_digest', 'desc').limit(-1).offset(keep),
    )
    .returning('token_digest'),
);

const addContact = compiled(6, (db, name: string, email: string, message: string, clientIp: string, userAgent: string | null, receivedAt: Date) =>
  db.insertInto('contact_messages').values({ name, email, message, client_ip: clientIp, user_agent: userAgent, received_at: receivedAt }),
);
// A stand-in (no recipient) is one row like a mail: the same statement, the same work.
const addMail = compiled(7, (db, id: string, to: string | null, subject: string, body: string, replyTo: string | null, kind: MailKind, queuedAt: Date) =>
  db.insertInto('mail_outbox').values({ id, recipient: to, subject, body, reply_to: replyTo, kind, created_at: queuedAt, due_at: queuedAt }),
);

/** The repositories of one unit: of work, or of none (each call its own step). */
export function repositories(unit: Unit): Repositories {
  const { step } = unit;
  const ended = (digests: readonly string[]) => {
    unit.revoke(digests);
    return digests;
  };
  const tokens = tokenRepositories(unit);
  return {
    users: {
      insert: (user) => step((run) => insertUser.all(run, user.name, user.email, user.passwordHash, user.createdAt).map(toRecord)[0] ?? null),
      findByEmail: (email) => step((run) => userByEmail.all(run, email).map(toRecord)[0] ?? null),
      findById: (id) => step((run) => userById.all(run, id).map(toRecord)[0] ?? null),
      update: (id, changes, expected = {}) =>
        step((run) => {
          const { update, values } = updateOf(changes, expected);
          let row: RecordRow | undefined;
          try {
            [row] = update.all(run, id, ...values);
          } catch (error) {
            if (isUniqueViolation(error)) throw new EmailTaken();
            throw error;
          }
          if (!row) return null;
          // Each session shows its user's name and address: a change of them is one of every session's.
          if (changes.name !== undefined || changes.email !== undefined || changes.emailVerified !== undefined) unit.revoke(digestsOf.all(run, id).map((r) => r.token_digest));
          return toRecord(row);
        }),
      delete: (id) =>
        step((run) => {
          // The cascade ends the sessions unannounced: they are told first (on commit).
          unit.revoke(digestsOf.all(run, id).map((r) => r.token_digest));
          return deleteUser.changes(run, id) > 0;
        }),
    },
    sessions: {
      insert: (s) => step((run) => insertSession.all(run, s.tokenDigest, randomUUID(), s.userId, s.credentialGeneration, s.createdAt, s.expiresAt).length > 0),
      findWithUser: (digest) =>
        step((run) => sessionWithUser.all(run, digest).map((r) => ({ user: { id: r.id, name: r.name, email: r.email, emailVerified: r.email_verified === 1 }, expiresAt: date(r.expires_at) }))[0] ?? null),
      listByUser: (userId, now) => step((run) => sessionsOf.all(run, userId, now).map((r) => ({ id: r.id, tokenDigest: r.token_digest, createdAt: date(r.created_at), expiresAt: date(r.expires_at) }))),
      delete: (digest) =>
        step((run) => {
          const [row] = deleteSession.all(run, digest);
          return row ? (ended([digest]), { expiresAt: date(row.expires_at) }) : null;
        }),
      deleteByUser: (userId, kept = {}) =>
        step((run) => {
          const except = kept.except ?? '';
          const rows = kept.keepNewest ? deleteOldest.all(run, userId, except, kept.keepNewest) : deleteAllBut.all(run, userId, except);
          return ended(rows.map((r) => r.token_digest));
        }),
      recordStepUp: tokens.recordStepUp,
      findStepUp: tokens.findStepUp,
    },
    oneTimeTokens: tokens.oneTimeTokens,
    contacts: {
      add: (m) => step((run) => void addContact.changes(run, m.name, m.email, m.message, m.clientIp, m.userAgent, m.receivedAt)),
    },
    ...secondFactorRepositories(unit),
    identities: identityRepository(unit),
    activity: activityRepository(unit),
    outbox: {
      add: (mail) => step((run) => void addMail.changes(run, randomUUID(), mail.to, mail.subject, mail.text, mail.replyTo ?? null, mail.kind ?? 'security', mail.queuedAt)),
    },
  };
}
