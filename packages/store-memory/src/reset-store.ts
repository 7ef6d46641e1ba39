import type { NewPasswordReset, OutgoingMail, PasswordResetStore } from '@sl-accounts/core';
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
    if (userId === undefined) return false;
    this.#table.resets.set(userId, { tokenDigest: reset.tokenDigest, expiresAt: reset.expiresAt });
    this.#outbox.enqueue(mail, reset.createdAt);
    return true;
  }

  async consume(tokenDigest: string, now: Date, passwordHash: string): Promise<{ readonly userId: number; readonly endedSessions: readonly string[] } | null> {
    const table = this.#table;
    for (const [userId, reset] of table.resets) {
      if (reset.tokenDigest !== tokenDigest) continue;
      const record = table.byId.get(userId);
      if (reset.expiresAt.getTime() <= now.getTime() || !record) return null;
      table.resets.delete(userId);
      table.byId.set(userId, { ...record, passwordHash });
      return { userId, endedSessions: table.endSessions(userId, null) };
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
