import type { Kysely, Transaction } from 'kysely';
import type { InProcessRevocations, NewUser, User, UserRecord, UserStore } from '@sl-accounts/core';
import { compileOnce, type RunStatement } from './compiled.ts';
import type { Database } from './database.ts';

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
        .select(['id', 'name', 'email', 'password_hash'])
        // The same expression as the unique index, so the lookup uses it.
        .where((eb) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(email)]))),
    );
  }

  async insert(user: NewUser): Promise<User | null> {
    // ON CONFLICT DO NOTHING without a target covers every unique index, lower(email) included: a
    // taken e-mail (also one inserted concurrently) yields no row instead of error 23505.
    const row = await this.#db
      .insertInto('users')
      .values({ name: user.name, email: user.email, password_hash: user.passwordHash, created_at: user.createdAt })
      .onConflict((oc) => oc.doNothing())
      .returning(['id', 'name', 'email'])
      .executeTakeFirst();
    return row ? { id: row.id, name: row.name, email: row.email } : null;
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const [row] = await this.#findByEmail(email);
    return row ? { id: row.id, name: row.name, email: row.email, passwordHash: row.password_hash } : null;
  }

  async updatePasswordHash(userId: number, passwordHash: string): Promise<void> {
    await this.#db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
  }

  async findById(userId: number): Promise<UserRecord | null> {
    const row = await this.#db.selectFrom('users').select(['id', 'name', 'email', 'password_hash']).where('id', '=', userId).executeTakeFirst();
    return row ? { id: row.id, name: row.name, email: row.email, passwordHash: row.password_hash } : null;
  }

  async changePassword(userId: number, passwordHash: string, keep: string | null): Promise<readonly string[] | null> {
    const ended = await this.#db.transaction().execute(async (trx) => {
      const updated = await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).returning('id').executeTakeFirst();
      if (!updated) return null;
      return endSessions(trx, userId, keep);
    });
    if (ended) this.#revocations?.publish(ended);
    return ended;
  }

  async delete(userId: number): Promise<readonly string[] | null> {
    const ended = await this.#db.transaction().execute(async (trx) => {
      // Named before the user goes, so they can be reported; the cascade would end them silently.
      const digests = await endSessions(trx, userId, null);
      const deleted = await trx.deleteFrom('users').where('id', '=', userId).returning('id').executeTakeFirst();
      return deleted ? digests : null;
    });
    if (ended) this.#revocations?.publish(ended);
    return ended;
  }
}

/** Deletes the user's sessions but `keep` (`null`: all) inside `trx`; returns their digests. */
export async function endSessions(trx: Transaction<Database>, userId: number, keep: string | null): Promise<string[]> {
  let query = trx.deleteFrom('sessions').where('user_id', '=', userId);
  if (keep !== null) query = query.where('token_digest', '<>', keep);
  const rows = await query.returning('token_digest').execute();
  return rows.map((r) => r.token_digest);
}
