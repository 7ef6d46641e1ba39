import type { Kysely } from 'kysely';
import type { EmailConfirmed, EmailLink, EmailVerificationStore, InProcessRevocations, OutgoingMail } from '@sl-accounts/core';
import type { Database } from './database.ts';
import { enqueueMail } from './outbox.ts';
import { endSessions, publishSessionsOf, toUser, USER } from './user-store.ts';

/** SQLSTATE unique_violation: the address a change moves to became another account's. */
const UNIQUE_VIOLATION = '23505';

export class PostgresEmailVerificationStore implements EmailVerificationStore {
  readonly #db: Kysely<Database>;
  /** Told of the sessions a change ends (or shows anew) when this process is the database's only writer (PGlite). */
  readonly #revocations: InProcessRevocations | undefined;

  constructor(db: Kysely<Database>, revocations?: InProcessRevocations) {
    this.#db = db;
    this.#revocations = revocations;
  }

  async request(userId: number, link: EmailLink): Promise<boolean> {
    const { token, mails } = link;
    return this.#db.transaction().execute(async (trx) => {
      // From the user's row, so a user deleted meanwhile, or whose password changed since it was
      // checked, gets no token (and no mail): one row per account, the newest replacing the one
      // before, whatever it was for. The row lock FOR SHARE makes a concurrent change wait or win.
      const stored = await trx
        .insertInto('email_tokens')
        .columns(['user_id', 'token_digest', 'purpose', 'email', 'credential_generation', 'created_at', 'expires_at'])
        .expression((eb) =>
          eb
            .selectFrom('users')
            .select([
              'id',
              eb.val(token.tokenDigest).as('token_digest'),
              eb.val(token.purpose).as('purpose'),
              eb.val(token.email).as('email'),
              eb.val(token.credentialGeneration).as('credential_generation'),
              eb.val(token.createdAt).as('created_at'),
              eb.val(token.expiresAt).as('expires_at'),
            ])
            .where('id', '=', userId)
            // The generation the request checked the password against: a change since writes nothing.
            .where('credential_generation', '=', token.credentialGeneration)
            .forShare(),
        )
        .onConflict((oc) =>
          oc.column('user_id').doUpdateSet((eb) => ({
            token_digest: eb.ref('excluded.token_digest'),
            purpose: eb.ref('excluded.purpose'),
            email: eb.ref('excluded.email'),
            credential_generation: eb.ref('excluded.credential_generation'),
            created_at: eb.ref('excluded.created_at'),
            expires_at: eb.ref('excluded.expires_at'),
          })),
        )
        .returning('user_id')
        .executeTakeFirst();
      if (!stored) return false;
      for (const mail of mails) await enqueueMail(trx, mail, token.createdAt);
      return true;
    });
  }

  async consume(tokenDigest: string, now: Date, keep: string | null, mails: (confirmed: EmailConfirmed) => readonly OutgoingMail[]): Promise<EmailConfirmed | 'taken' | null> {
    let confirmed: EmailConfirmed | null;
    try {
      confirmed = await this.#db.transaction().execute(async (trx) => {
        // RETURNING reports the row only to the statement that removed it: of concurrent uses, one wins.
        const token = await trx
          .deleteFrom('email_tokens')
          .where('token_digest', '=', tokenDigest)
          .where('expires_at', '>', now)
          .returning(['user_id', 'purpose', 'email', 'credential_generation'])
          .executeTakeFirst();
        if (!token) return null;
        const userId = token.user_id;
        let done: EmailConfirmed;
        if (token.purpose === 'verify') {
          // Only the address the link was mailed to, if the account still has it (the deletion above is kept either way).
          const before = await trx.selectFrom('users').select('email_verified').where('id', '=', userId).where('email', '=', token.email).forUpdate().executeTakeFirst();
          const row = before && (await trx.updateTable('users').set({ email_verified: true }).where('id', '=', userId).returning(USER).executeTakeFirst());
          if (!row) return null;
          done = { purpose: 'verify', user: toUser(row), previousEmail: row.email, previousEmailVerified: before.email_verified, endedSessions: [] };
        } else {
          // The row lock first (as a change of password takes it), so no session is inserted under
          // the old generation after the sessions below are named.
          // Asked for under a credential that has changed since (a password change, a reset, another
          // move): whoever asked may have been the one the owner locked out.
          const before = await trx
            .selectFrom('users')
            .select(['email', 'email_verified'])
            .where('id', '=', userId)
            .where('credential_generation', '=', token.credential_generation)
            .forUpdate()
            .executeTakeFirst();
          if (!before) return null;
          // The unique index on lower(email) decides: a concurrent move or signup to the same address
          // either committed first (this update fails) or waits for this one (and then fails).
          const row = await trx
            .updateTable('users')
            .set((eb) => ({ email: token.email, email_verified: true, credential_generation: eb('credential_generation', '+', 1) }))
            .where('id', '=', userId)
            .returning(USER)
            .executeTakeFirst();
          if (!row) return null;
          // A reset link mailed to the old address opens nothing any more.
          await trx.deleteFrom('password_resets').where('user_id', '=', userId).execute();
          done = { purpose: 'change', user: toUser(row), previousEmail: before.email, previousEmailVerified: before.email_verified, endedSessions: await endSessions(trx, userId, keep) };
        }
        for (const mail of mails(done)) await enqueueMail(trx, mail, now);
        return done;
      });
    } catch (error) {
      if (isUniqueViolation(error)) return 'taken';
      throw error;
    }
    if (confirmed) {
      this.#revocations?.publish(confirmed.endedSessions);
      // The sessions left show a changed user.
      await publishSessionsOf(this.#db, this.#revocations, confirmed.user.id);
    }
    return confirmed;
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.#db.deleteFrom('email_tokens').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** Whether `error` is a unique violation (the transaction rolled back: nothing changed). */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === UNIQUE_VIOLATION;
}
