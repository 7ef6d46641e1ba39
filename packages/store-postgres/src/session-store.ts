import type { Kysely } from 'kysely';
import type { InProcessRevocations, NewSession, SessionInfo, SessionStore, SessionWithUser } from '@sl-accounts/core';
import { compileOnce, type RunStatement } from './compiled.ts';
import type { Database } from './database.ts';

/** U+0000 and unpaired surrogates: what a text column cannot hold as it is. */
const NOT_STORABLE = /[\0\p{Cs}]/u;

export class PostgresSessionStore implements SessionStore {
  readonly #db: Kysely<Database>;
  /**
   * Told of every deletion when this process is the database's only writer (PGlite); on a server the
   * database's own triggers tell every process instead.
   */
  readonly #revocations: InProcessRevocations | undefined;
  // One round trip per /api/me: the session and its user in a single join, compiled once.
  readonly #findWithUser;
  readonly #create;
  // RETURNING reports the row only to the statement that removed it, so of two concurrent
  // deletes exactly one sees it.
  readonly #delete;

  /** `run` runs the hot statements (see compileOnce); the rest go through `db`. */
  constructor(db: Kysely<Database>, run: RunStatement, revocations?: InProcessRevocations) {
    this.#db = db;
    this.#revocations = revocations;
    this.#findWithUser = compileOnce(run, 1, (digest: string) =>
      db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select(['users.id', 'users.name', 'users.email', 'sessions.expires_at'])
        .where('sessions.token_digest', '=', digest),
    );
    this.#create = compileOnce(run, 4, (tokenDigest: string, userId: number, createdAt: Date, expiresAt: Date) =>
      db.insertInto('sessions').values({ token_digest: tokenDigest, user_id: userId, created_at: createdAt, expires_at: expiresAt }),
    );
    this.#delete = compileOnce(run, 1, (digest: string) => db.deleteFrom('sessions').where('token_digest', '=', digest).returning('expires_at'));
  }

  async create(session: NewSession, maxPerUser?: number): Promise<void> {
    if (maxPerUser === undefined) {
      await this.#create(session.tokenDigest, session.userId, session.createdAt, session.expiresAt);
      return;
    }
    const ended = await this.#db.transaction().execute(async (trx) => {
      // Serialises the creates of one user, so concurrent logins cannot each keep their own extra
      // session. NO KEY UPDATE does not block the foreign-key checks of other sessions' inserts.
      await trx.selectFrom('users').select('id').where('id', '=', session.userId).forNoKeyUpdate().execute();
      await trx
        .insertInto('sessions')
        .values({ token_digest: session.tokenDigest, user_id: session.userId, created_at: session.createdAt, expires_at: session.expiresAt })
        .execute();
      // Oldest first by creation time (the digest breaks ties, as it must be some order); the
      // delete trigger tells every listening process.
      return trx
        .deleteFrom('sessions')
        .where('token_digest', 'in', (q) =>
          q
            .selectFrom('sessions')
            .select('token_digest')
            .where('user_id', '=', session.userId)
            .where('token_digest', '<>', session.tokenDigest)
            .orderBy('created_at', 'desc')
            .orderBy('token_digest', 'desc')
            .offset(maxPerUser - 1),
        )
        .returning('token_digest')
        .execute();
    });
    if (ended.length > 0) this.#revocations?.publish(ended.map((r) => r.token_digest));
  }

  async findWithUser(tokenDigest: string): Promise<SessionWithUser | null> {
    const [row] = await this.#findWithUser(tokenDigest);
    return row ? { user: { id: row.id, name: row.name, email: row.email }, expiresAt: row.expires_at } : null;
  }

  async listByUser(userId: number, now: Date): Promise<readonly SessionInfo[]> {
    const rows = await this.#db
      .selectFrom('sessions')
      .select(['id', 'token_digest', 'created_at', 'expires_at'])
      .where('user_id', '=', userId)
      .where('expires_at', '>', now)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ id: r.id, tokenDigest: r.token_digest, createdAt: r.created_at, expiresAt: r.expires_at }));
  }

  async deleteById(userId: number, id: string): Promise<string | null> {
    // An id no text column can hold (U+0000, which Postgres refuses outright, or an unpaired
    // surrogate) names no session: the caller's input, never a failed statement.
    if (NOT_STORABLE.test(id)) return null;
    const row = await this.#db.deleteFrom('sessions').where('id', '=', id).where('user_id', '=', userId).returning('token_digest').executeTakeFirst();
    if (row) this.#revocations?.publish([row.token_digest]);
    return row?.token_digest ?? null;
  }

  async delete(tokenDigest: string): Promise<{ readonly expiresAt: Date } | null> {
    const [row] = await this.#delete(tokenDigest);
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
