import type { Kysely, Transaction } from 'kysely';
import type { AccountMail, EmailLink, InProcessRevocations, NewUser, User, UserRecord, UserStore } from '@sl-accounts/core';
import { compileOnce, type RunStatement } from './compiled.ts';
import type { Database } from './database.ts';
import { enqueueMail } from './outbox.ts';

const RECORD = ['id', 'name', 'email', 'email_verified', 'password_hash', 'credential_generation'] as const;

/** The columns of a `User`. */
export const USER = ['id', 'name', 'email', 'email_verified'] as const;

type UserRow = { id: number; name: string; email: string; email_verified: boolean };
type RecordRow = UserRow & { password_hash: string; credential_generation: number };

/** A user row as the ports give it out. */
export const toUser = (row: UserRow): User => ({ id: row.id, name: row.name, email: row.email, emailVerified: row.email_verified });

const toRecord = (row: RecordRow): UserRecord => ({
  ...toUser(row),
  passwordHash: row.password_hash,
  credentialGeneration: row.credential_generation,
});

export class PostgresUserStore implements UserStore {
  readonly #db: Kysely<Database>;
  readonly #findByEmail;
  /** Told of the sessions a change ends when this process is the database's only writer (PGlite). */
  readonly #revocations: InProcessRevocations | undefined;

  /** `run` runs the hot statements (see compileOnce); the rest go through `db`. */
  constructor(db: Kysely<Database>, run: RunStatement, revocations?: InProcessRevocations) {
    this.#db = db;
    this.#revocations = revocations;
    this.#findByEmail = compileOnce(run, 1, (email: string) =>
      db
        .selectFrom('users')
        .select(RECORD)
        // The same expression as the unique index, so the lookup uses it.
        .where((eb) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(email)]))),
    );
  }

  async insert(user: NewUser, verification?: EmailLink): Promise<User | null> {
    // ON CONFLICT DO NOTHING without a target covers every unique index, lower(email) included: a
    // taken e-mail (also one inserted concurrently) yields no row instead of error 23505. The id is
    // an identity column, never reused; the generation starts at the column's default, 0, and the
    // address unverified.
    const insert = (db: Kysely<Database> | Transaction<Database>) =>
      db
        .insertInto('users')
        .values({ name: user.name, email: user.email, password_hash: user.passwordHash, created_at: user.createdAt })
        .onConflict((oc) => oc.doNothing())
        .returning(USER)
        .executeTakeFirst();
    if (!verification) {
      const row = await insert(this.#db);
      return row ? toUser(row) : null;
    }
    // The account, its verification token and its mail: all or nothing.
    const row = await this.#db.transaction().execute(async (trx) => {
      const inserted = await insert(trx);
      if (!inserted) return undefined;
      const { token, mails } = verification;
      await trx
        .insertInto('email_tokens')
        .values({
          user_id: inserted.id,
          token_digest: token.tokenDigest,
          purpose: token.purpose,
          email: token.email,
          credential_generation: token.credentialGeneration,
          created_at: token.createdAt,
          expires_at: token.expiresAt,
        })
        .execute();
      for (const mail of mails) await enqueueMail(trx, mail, token.createdAt);
      return inserted;
    });
    return row ? toUser(row) : null;
  }

  async rename(userId: number, name: string): Promise<User | null> {
    // The users-update trigger (on name) tells every session cache on a Postgres server.
    const row = await this.#db.updateTable('users').set({ name }).where('id', '=', userId).returning(USER).executeTakeFirst();
    if (row) await publishSessionsOf(this.#db, this.#revocations, userId);
    return row ? toUser(row) : null;
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const [row] = await this.#findByEmail(email);
    return row ? toRecord(row) : null;
  }

  async updatePasswordHash(userId: number, generation: number, passwordHash: string): Promise<boolean> {
    // The generation is the condition, not a target: a rehash is no change of credential (and the
    // users-update trigger, on id, name and email only, does not fire).
    const result = await this.#db
      .updateTable('users')
      .set({ password_hash: passwordHash })
      .where('id', '=', userId)
      .where('credential_generation', '=', generation)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async findById(userId: number): Promise<UserRecord | null> {
    const row = await this.#db.selectFrom('users').select(RECORD).where('id', '=', userId).executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async changePassword(userId: number, generation: number, passwordHash: string, keep: string | null, notice?: AccountMail | null): Promise<readonly string[] | null> {
    const ended = await this.#db.transaction().execute(async (trx) => {
      // The update takes the user's row lock first: a session create waiting on it then finds the new
      // generation and stores nothing, and one that got the lock first has committed before the
      // sessions are ended below (each statement here sees what committed before it began).
      const moved = await moveGeneration(trx, userId, generation, passwordHash);
      if (moved === null) return null;
      await trx.deleteFrom('password_resets').where('user_id', '=', userId).execute();
      if (notice) await enqueueAccountMail(trx, moved.email, notice);
      return endSessions(trx, userId, keep);
    });
    if (ended) this.#revocations?.publish(ended);
    return ended;
  }

  async delete(userId: number, generation: number, notice?: AccountMail | null): Promise<readonly string[] | null> {
    const ended = await this.#db.transaction().execute(async (trx) => {
      // The row lock first, as in changePassword, so no session is inserted after the sessions are
      // named (a create waiting on the lock finds no user and stores nothing, never an orphan).
      const locked = await trx.selectFrom('users').select('email').where('id', '=', userId).where('credential_generation', '=', generation).forUpdate().executeTakeFirst();
      if (!locked) return null;
      // To the address the account had: the outbox row does not depend on the user's.
      if (notice) await enqueueAccountMail(trx, locked.email, notice);
      // Named before the user goes, so they can be reported; the cascade would end them silently.
      const digests = await endSessions(trx, userId, null);
      await trx.deleteFrom('users').where('id', '=', userId).execute();
      return digests;
    });
    if (ended) this.#revocations?.publish(ended);
    return ended;
  }
}

/**
 * Where this process is the database's only writer (PGlite), tells its session caches that the
 * user's sessions show a changed user (on a Postgres server, the users-update trigger does).
 */
export async function publishSessionsOf(db: Kysely<Database> | Transaction<Database>, revocations: InProcessRevocations | undefined, userId: number): Promise<void> {
  if (!revocations) return;
  const rows = await db.selectFrom('sessions').select('token_digest').where('user_id', '=', userId).execute();
  revocations.publish(rows.map((r) => r.token_digest));
}

/**
 * A change of credential on the user's row, inside `trx`: the new hash under the next generation,
 * only while the generation is still `generation`. Returns the user's e-mail address, or `null`.
 */
export async function moveGeneration(trx: Transaction<Database>, userId: number, generation: number, passwordHash: string): Promise<{ readonly email: string; readonly emailVerified: boolean } | null> {
  const row = await trx
    .updateTable('users')
    .set((eb) => ({ password_hash: passwordHash, credential_generation: eb('credential_generation', '+', 1) }))
    .where('id', '=', userId)
    .where('credential_generation', '=', generation)
    .returning(['email', 'email_verified'])
    .executeTakeFirst();
  return row ? { email: row.email, emailVerified: row.email_verified } : null;
}

/** Queues `notice` to `email` (the account's address, read in `trx`) inside `trx`. */
export async function enqueueAccountMail(trx: Transaction<Database>, email: string, notice: AccountMail): Promise<void> {
  const { queuedAt, ...mail } = notice;
  await enqueueMail(trx, { ...mail, to: email }, queuedAt);
}

/** Deletes the user's sessions but `keep` (`null`: all) inside `trx`; returns their digests. */
export async function endSessions(trx: Transaction<Database>, userId: number, keep: string | null): Promise<string[]> {
  let query = trx.deleteFrom('sessions').where('user_id', '=', userId);
  if (keep !== null) query = query.where('token_digest', '<>', keep);
  const rows = await query.returning('token_digest').execute();
  return rows.map((r) => r.token_digest);
}
