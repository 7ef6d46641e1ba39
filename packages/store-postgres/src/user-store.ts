import type { Kysely } from 'kysely';
import type { NewUser, User, UserRecord, UserStore } from '@sl/core';
import { compileOnce, type RunStatement } from './compiled.ts';
import type { Database } from './database.ts';

export class PostgresUserStore implements UserStore {
  readonly #db: Kysely<Database>;
  readonly #findByEmail;

  /** `run` runs the hot statements (see compileOnce); the rest go through `db`. */
  constructor(db: Kysely<Database>, run: RunStatement) {
    this.#db = db;
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
}
