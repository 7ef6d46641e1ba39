import type { EmailConfirmed, EmailLink, EmailVerificationStore, OutgoingMail } from '@sl-accounts/core';
import { deleteWhere } from './delete-where.ts';
import type { MemoryOutbox } from './outbox.ts';
import { toUser, type UserTable } from './user-store.ts';

/** Verification and change-of-address tokens in the shared tables, one per user; each method is one synchronous step. */
export class MemoryEmailVerificationStore implements EmailVerificationStore {
  readonly #table: UserTable;
  /** Where the mails go, in the same synchronous step as the token or the change. */
  readonly #outbox: MemoryOutbox;

  constructor(table: UserTable, outbox: MemoryOutbox) {
    this.#table = table;
    this.#outbox = outbox;
  }

  async request(userId: number, link: EmailLink): Promise<boolean> {
    // Gone, or its password changed since the request checked it: nothing is written.
    if (this.#table.byId.get(userId)?.credentialGeneration !== link.token.credentialGeneration) return false;
    this.#table.emailTokens.set(userId, link.token);
    for (const mail of link.mails) this.#outbox.enqueue(mail, link.token.createdAt);
    return true;
  }

  async consume(tokenDigest: string, now: Date, keep: string | null, mails: (confirmed: EmailConfirmed) => readonly OutgoingMail[]): Promise<EmailConfirmed | 'taken' | null> {
    const table = this.#table;
    for (const [userId, token] of table.emailTokens) {
      if (token.tokenDigest !== tokenDigest) continue;
      const record = table.byId.get(userId);
      if (token.expiresAt.getTime() <= now.getTime() || !record) return null;
      let confirmed: EmailConfirmed;
      if (token.purpose === 'verify') {
        table.emailTokens.delete(userId);
        // Mailed to an address the account no longer has: it proves nothing about the one it has.
        if (record.email !== token.email) return null;
        const verified = { ...record, emailVerified: true };
        table.updateUser(verified);
        confirmed = { purpose: 'verify', user: toUser(verified), previousEmail: record.email, previousEmailVerified: record.emailVerified, endedSessions: [] };
      } else {
        // Asked for under a credential that has changed since (a password change, a reset, another
        // move): whoever asked may have been the one the owner locked out.
        if (record.credentialGeneration !== token.credentialGeneration) {
          table.emailTokens.delete(userId);
          return null;
        }
        // The unique index's part: the check and the move are one synchronous step.
        const holder = table.idByEmail.get(token.email);
        if (holder !== undefined && holder !== userId) return 'taken';
        table.emailTokens.delete(userId);
        table.idByEmail.delete(record.email);
        table.idByEmail.set(token.email, userId);
        const endedSessions = table.changeCredential(record, record.passwordHash, keep, { email: token.email, emailVerified: true });
        // The kept session shows the new address: caches forget it too.
        table.revocations.publish([...(table.sessionsByUser.get(userId) ?? [])]);
        confirmed = { purpose: 'change', user: toUser(table.byId.get(userId)!), previousEmail: record.email, previousEmailVerified: record.emailVerified, endedSessions };
      }
      for (const mail of mails(confirmed)) this.#outbox.enqueue(mail, now);
      return confirmed;
    }
    return null;
  }

  async deleteExpired(now: Date): Promise<number> {
    return deleteWhere(this.#table.emailTokens, (t) => t.expiresAt.getTime() <= now.getTime());
  }
}
