import type { NewPasswordReset, OutgoingMail, PasswordReset, PasswordResetStore } from '@sl-accounts/core';
import { deleteWhere } from './delete-where.ts';
import type { MemoryOutbox } from './outbox.ts';
import type { UserTable } from './user-store.ts';

/** Reset tokens in the shared tables, one per user; each method is one synchronous step. */
export class MemoryPasswordResetStore implements PasswordResetStore {
  readonly #table: UserTable;
  /** Where a reset's mail goes, in the same synchronous step as its token. */
  readonly #outbox: MemoryOutbox;

  constructor(table: UserTable, outbox: MemoryOutbox) {
    this.#table = table;
    this.#outbox = outbox;
  }

  async request(email: string, reset: NewPasswordReset, mail: OutgoingMail): Promise<boolean> {
    const userId = this.#table.idByEmail.get(email);
    const record = userId === undefined ? undefined : this.#table.byId.get(userId);
    if (!record) return false;
    this.#table.resets.set(record.id, { tokenDigest: reset.tokenDigest, expiresAt: reset.expiresAt, credentialGeneration: record.credentialGeneration });
    this.#outbox.enqueue(mail, reset.createdAt);
    return true;
  }

  async consume(tokenDigest: string, now: Date, passwordHash: string): Promise<PasswordReset | null> {
    const table = this.#table;
    for (const [userId, reset] of table.resets) {
      if (reset.tokenDigest !== tokenDigest) continue;
      const record = table.byId.get(userId);
      if (reset.expiresAt.getTime() <= now.getTime() || !record) return null;
      if (record.credentialGeneration !== reset.credentialGeneration) {
        table.resets.delete(userId);
        return null;
      }
      return { userId, email: record.email, endedSessions: table.changeCredential(record, passwordHash, null) };
    }
    return null;
  }

  async deleteExpired(now: Date): Promise<number> {
    return deleteWhere(this.#table.resets, (r) => r.expiresAt.getTime() <= now.getTime());
  }

  /** How many tokens are kept, expired ones included (for tests of the sweep). */
  get size(): number {
    return this.#table.resets.size;
  }
}
