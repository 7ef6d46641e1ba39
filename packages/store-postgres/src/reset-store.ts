import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { AccountMail, InProcessRevocations, NewPasswordReset, OutgoingMail, PasswordReset, PasswordResetStore } from '@sl-accounts/core';
import type { Database } from './database.ts';
import { endSessions, enqueueAccountMail, moveGeneration } from './user-store.ts';

export class PostgresPasswordResetStore implements PasswordResetStore {
  readonly #db: Kysely<Database>;
  /** Told of the sessions a reset ends when this process is the database's only writer (PGlite). */
  readonly #revocations: InProcessRevocations | undefined;

  constructor(db: Kysely<Database>, revocations?: InProcessRevocations) {
    this.#db = db;
    this.#revocations = revocations;
  }

  async request(email: string, reset: NewPasswordReset, mail: OutgoingMail): Promise<boolean> {
    // One statement, the same rows whether or not the address is an account's: the token row (keyed
    // by address, bound to the account and its credential generation, or to none) and the outbox row
    // (with the recipient, or without: a stand-in the next claim removes unsent). A difference in
    // work would show in the time of the client's next request, on PGlite's one connection above
    // all (test/bench/reset-timing.ts).
    const { rows } = await sql<{ recipient: string | null }>`
      with account as (
        -- The same expression as the unique index, so the lookup uses it.
        select id, credential_generation from users where lower(email) = lower(${email})
      ), token as (
        insert into password_resets (email, user_id, credential_generation, token_digest, created_at, expires_at)
        values (${email}, (select id from account), (select credential_generation from account), ${reset.tokenDigest}, ${reset.createdAt}, ${reset.expiresAt})
        on conflict (email) do update set
          user_id = excluded.user_id, credential_generation = excluded.credential_generation,
          token_digest = excluded.token_digest, created_at = excluded.created_at, expires_at = excluded.expires_at
      )
      insert into mail_outbox (id, recipient, subject, body, reply_to, kind, created_at, due_at)
      values (${randomUUID()}, (select ${mail.to}::text from account), ${mail.subject}, ${mail.text}, ${mail.replyTo ?? null}, ${mail.kind ?? 'security'}, ${reset.createdAt}, ${reset.createdAt})
      returning recipient`.execute(this.#db);
    return rows[0]?.recipient != null;
  }

  async consume(tokenDigest: string, now: Date, passwordHash: string, notice?: AccountMail | null): Promise<PasswordReset | null> {
    const done = await this.#db.transaction().execute(async (trx) => {
      // RETURNING reports the row only to the statement that removed it: of concurrent uses, one wins.
      const reset = await trx
        .deleteFrom('password_resets')
        .where('token_digest', '=', tokenDigest)
        .where('expires_at', '>', now)
        // A token of a request for an address that was nobody's opens nothing.
        .where('user_id', 'is not', null)
        .returning(['user_id', 'credential_generation'])
        .executeTakeFirst();
      if (!reset || reset.user_id === null || reset.credential_generation === null) return null;
      const userId = reset.user_id;
      // A token requested under an older generation is void (its deletion above is kept).
      const moved = await moveGeneration(trx, userId, reset.credential_generation, passwordHash);
      if (moved === null) return null;
      if (notice) await enqueueAccountMail(trx, moved.email, notice);
      // The reset link was read at the address: that proves it. Only when it was not proven yet, so a
      // reset of a verified account does not make every session cache forget everything (the
      // users-update trigger fires on the column named, changed or not).
      if (!moved.emailVerified) await trx.updateTable('users').set({ email_verified: true }).where('id', '=', userId).execute();
      return { userId, email: moved.email, endedSessions: await endSessions(trx, userId, null) };
    });
    if (done) this.#revocations?.publish(done.endedSessions);
    return done;
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.#db.deleteFrom('password_resets').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
