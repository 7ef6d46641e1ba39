import type { Kysely } from 'kysely';
import type { AccountMail, InProcessRevocations, NewSession, SessionInfo, SessionStore, SessionWithUser } from '@sl-accounts/core';
import { compileOnce, type RunStatement } from './compiled.ts';
import type { Database } from './database.ts';
import { enqueueNotice } from './outbox.ts';
import { toUser } from './user-store.ts';

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
        .select(['users.id', 'users.name', 'users.email', 'users.email_verified', 'sessions.expires_at'])
        .where('sessions.token_digest', '=', digest),
    );
    this.#create = compileOnce(run, 5, (tokenDigest: string, userId: number, generation: number, createdAt: Date, expiresAt: Date) =>
      insertUnderGeneration(db, 'share', tokenDigest, userId, generation, createdAt, expiresAt).returning('token_digest'),
    );
    this.#delete = compileOnce(run, 1, (digest: string) => db.deleteFrom('sessions').where('token_digest', '=', digest).returning('expires_at'));
  }

  async create(session: NewSession, maxPerUser?: number, notice?: AccountMail | null): Promise<boolean> {
    const { tokenDigest, userId, credentialGeneration, createdAt, expiresAt } = session;
    if (maxPerUser === undefined && !notice) {
      // One statement: the user's row is read under FOR SHARE, which a change of credential's
      // update (or a deletion) conflicts with. Either that change waits for this insert to commit
      // and then ends the session with the others, or this statement waits for the change and then
      // finds the generation moved on (Postgres checks a locked row's newest version again), or the
      // user gone, and inserts nothing: never a session under a stale generation, never an orphan.
      return (await this.#create(tokenDigest, userId, credentialGeneration, createdAt, expiresAt)).length > 0;
    }
    const ended = await this.#db.transaction().execute(async (trx) => {
      // The insert under the generation check, as above, with the row lock NO KEY UPDATE held to the
      // commit: it also serialises the creates of one user, so concurrent logins cannot each keep
      // their own extra session, and it does not block the foreign-key checks of other sessions'
      // inserts. Nothing inserted: nothing to trim, and no notice. (Without a bound, only a notice
      // brings a create here: the row lock FOR SHARE suffices, as in the one statement above.)
      const lock = maxPerUser === undefined ? 'share' : 'no key update';
      const inserted = await insertUnderGeneration(trx, lock, tokenDigest, userId, credentialGeneration, createdAt, expiresAt).returning('token_digest').execute();
      if (inserted.length === 0) return null;
      // The user's row is locked: the address read here is the account's at the commit.
      if (notice) await enqueueNotice(trx, userId, notice);
      if (maxPerUser === undefined) return [];
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
    if (ended === null) return false;
    if (ended.length > 0) this.#revocations?.publish(ended.map((r) => r.token_digest));
    return true;
  }

  async findWithUser(tokenDigest: string): Promise<SessionWithUser | null> {
    const [row] = await this.#findWithUser(tokenDigest);
    return row ? { user: toUser(row), expiresAt: row.expires_at } : null;
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

/**
 * `INSERT INTO sessions … SELECT … FROM users WHERE id = $user AND credential_generation = $generation
 * FOR <lock>`: the session exists only if the user does, at that generation, and the user's row stays
 * locked in `lock` mode until the statement's transaction ends.
 */
function insertUnderGeneration(db: Kysely<Database>, lock: 'share' | 'no key update', tokenDigest: string, userId: number, generation: number, createdAt: Date, expiresAt: Date) {
  return db.insertInto('sessions').columns(['token_digest', 'user_id', 'created_at', 'expires_at']).expression((eb) => {
    const owner = eb
      .selectFrom('users')
      .select((s) => [s.val(tokenDigest).as('token_digest'), 'id', s.val(createdAt).as('created_at'), s.val(expiresAt).as('expires_at')])
      .where('id', '=', userId)
      .where('credential_generation', '=', generation);
    return lock === 'share' ? owner.forShare() : owner.forNoKeyUpdate();
  });
}
