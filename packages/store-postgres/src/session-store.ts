import type { Kysely } from 'kysely';
import type { InProcessRevocations, NewSession, SessionStore, SessionWithUser } from '@sl/core';
import { compileOnce } from './compiled.ts';
import type { Database } from './database.ts';

export class PostgresSessionStore implements SessionStore {
  readonly #db: Kysely<Database>;
  /**
   * Told of every deletion when this process is the database's only writer (PGlite); on a server the
   * database's own triggers tell every process instead.
   */
  readonly #revocations: InProcessRevocations | undefined;
  // One round trip per /api/me: the session and its user in a single join, compiled once.
  readonly #findWithUser;

  constructor(db: Kysely<Database>, revocations?: InProcessRevocations) {
    this.#db = db;
    this.#revocations = revocations;
    this.#findWithUser = compileOnce(db, 1, (digest: string) =>
      db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select(['users.id', 'users.name', 'users.email', 'sessions.expires_at'])
        .where('sessions.token_digest', '=', digest),
    );
  }

  async create(session: NewSession): Promise<void> {
    await this.#db
      .insertInto('sessions')
      .values({ token_digest: session.tokenDigest, user_id: session.userId, created_at: session.createdAt, expires_at: session.expiresAt })
      .execute();
  }

  async findWithUser(tokenDigest: string): Promise<SessionWithUser | null> {
    const [row] = await this.#findWithUser(tokenDigest);
    return row ? { user: { id: row.id, name: row.name, email: row.email }, expiresAt: row.expires_at } : null;
  }

  async delete(tokenDigest: string): Promise<{ readonly expiresAt: Date } | null> {
    // RETURNING reports the row only to the statement that removed it, so of two concurrent
    // deletes exactly one sees it.
    const row = await this.#db.deleteFrom('sessions').where('token_digest', '=', tokenDigest).returning('expires_at').executeTakeFirst();
    if (row) this.#revocations?.publish([tokenDigest]);
    return row ? { expiresAt: row.expires_at } : null;
  }

  async deleteExpired(now: Date): Promise<number> {
    // The caller's `now`, never SQL now(): the clock is a port, and tests move it.
    if (this.#revocations) {
      const rows = await this.#db.deleteFrom('sessions').where('expires_at', '<=', now).returning('token_digest').execute();
      this.#revocations.publish(rows.map((r) => r.token_digest));
      return rows.length;
    }
    const result = await this.#db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
