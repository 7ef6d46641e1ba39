import type { Kysely } from 'kysely';
import type { InProcessRevocations, NewPasswordReset, OutgoingMail, PasswordReset, PasswordResetStore } from '@sl-accounts/core';
import type { Database } from './database.ts';
import { enqueueMail } from './outbox.ts';
import { endSessions, moveGeneration } from './user-store.ts';

export class PostgresPasswordResetStore implements PasswordResetStore {
  readonly #db: Kysely<Database>;
  /** Told of the sessions a reset ends when this process is the database's only writer (PGlite). */
  readonly #revocations: InProcessRevocations | undefined;

  constructor(db: Kysely<Database>, revocations?: InProcessRevocations) {
    this.#db = db;
    this.#revocations = revocations;
  }

  async request(email: string, reset: NewPasswordReset, mail: OutgoingMail): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      // One statement finds the user and writes the token: an unknown address writes nothing.
      const row = await trx
        .insertInto('password_resets')
        .columns(['user_id', 'credential_generation', 'token_digest', 'created_at', 'expires_at'])
        .expression((eb) =>
          eb
            .selectFrom('users')
            .select((s) => ['id', 'credential_generation', s.val(reset.tokenDigest).as('token_digest'), s.val(reset.createdAt).as('created_at'), s.val(reset.expiresAt).as('expires_at')])
            // The same expression as the unique index, so the lookup uses it.
            .where((w) => w(w.fn('lower', ['email']), '=', w.fn('lower', [w.val(email)]))),
        )
        .onConflict((oc) =>
          oc.column('user_id').doUpdateSet((eb) => ({
            credential_generation: eb.ref('excluded.credential_generation'),
            token_digest: eb.ref('excluded.token_digest'),
            created_at: eb.ref('excluded.created_at'),
            expires_at: eb.ref('excluded.expires_at'),
          })),
        )
        .returning('user_id')
        .executeTakeFirst();
      if (!row) return false;
      await enqueueMail(trx, mail, reset.createdAt);
      return true;
    });
  }

  async consume(tokenDigest: string, now: Date, passwordHash: string): Promise<PasswordReset | null> {
    const done = await this.#db.transaction().execute(async (trx) => {
      // RETURNING reports the row only to the statement that removed it: of concurrent uses, one wins.
      const reset = await trx
        .deleteFrom('password_resets')
        .where('token_digest', '=', tokenDigest)
        .where('expires_at', '>', now)
        .returning(['user_id', 'credential_generation'])
        .executeTakeFirst();
      if (!reset) return null;
      // A token requested under an older generation is void (its deletion above is kept).
      const email = await moveGeneration(trx, reset.user_id, reset.credential_generation, passwordHash);
      if (email === null) return null;
      return { userId: reset.user_id, email, endedSessions: await endSessions(trx, reset.user_id, null) };
    });
    if (done) this.#revocations?.publish(done.endedSessions);
    return done;
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.#db.deleteFrom('password_resets').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
