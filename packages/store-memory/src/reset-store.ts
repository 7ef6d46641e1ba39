import type { AccountMail, NewPasswordReset, OutgoingMail, PasswordReset, PasswordResetStore } from '@sl-accounts/core';
import { deleteWhere } from './delete-where.ts';
import type { MemoryOutbox } from './outbox.ts';
import type { StoredReset, UserTable } from './user-store.ts';

/** Most stand-in tokens kept (see `request`): they open nothing, so the oldest may go. */
const STAND_IN_CAPACITY = 1_000;

/** Reset tokens in the shared tables, one per user; each method is one synchronous step. */
export class MemoryPasswordResetStore implements PasswordResetStore {
  readonly #table: UserTable;
  /** Where a reset's mail goes, in the same synchronous step as its token. */
  readonly #outbox: MemoryOutbox;
  /** The tokens of requests for addresses that are nobody's, by address: kept like a user's, never consumed. */
  readonly #standIns = new Map<string, StoredReset>();

  constructor(table: UserTable, outbox: MemoryOutbox) {
    this.#table = table;
    this.#outbox = outbox;
  }

  async request(email: string, reset: NewPasswordReset, mail: OutgoingMail): Promise<boolean> {
    const userId = this.#table.idByEmail.get(email);
    const record = userId === undefined ? undefined : this.#table.byId.get(userId);
    // The same steps either way (a token entry, an outbox entry), so that neither costs what the
    // other does not; only an account's address gets a token that opens something, and a mail.
    if (!record) {
      // Bound to no generation of any account: never consumed, whatever happens at the address.
      this.#standIns.delete(email);
      this.#standIns.set(email, { tokenDigest: reset.tokenDigest, expiresAt: reset.expiresAt, credentialGeneration: -1 });
      for (const key of this.#standIns.keys()) {
        if (this.#standIns.size <= STAND_IN_CAPACITY) break;
        this.#standIns.delete(key);
      }
      this.#outbox.enqueueStandIn(reset.createdAt);
      return false;
    }
    this.#table.resets.set(record.id, { tokenDigest: reset.tokenDigest, expiresAt: reset.expiresAt, credentialGeneration: record.credentialGeneration });
    this.#outbox.enqueue(mail, reset.createdAt);
    return true;
  }

  async consume(tokenDigest: string, now: Date, passwordHash: string, notice?: AccountMail | null): Promise<PasswordReset | null> {
    const table = this.#table;
    for (const [userId, reset] of table.resets) {
      if (reset.tokenDigest !== tokenDigest) continue;
      const record = table.byId.get(userId);
      if (reset.expiresAt.getTime() <= now.getTime() || !record) return null;
      if (record.credentialGeneration !== reset.credentialGeneration) {
        table.resets.delete(userId);
        return null;
      }
      table.notify(record, notice);
      // The reset link was read at the address: that proves it.
      return { userId, email: record.email, endedSessions: table.changeCredential(record, passwordHash, null, { emailVerified: true }) };
    }
    return null;
  }

  async deleteExpired(now: Date): Promise<number> {
    const expired = (r: StoredReset) => r.expiresAt.getTime() <= now.getTime();
    return deleteWhere(this.#table.resets, expired) + deleteWhere(this.#standIns, expired);
  }

  /** How many tokens are kept, expired ones and stand-ins included (for tests of the sweep). */
  get size(): number {
    return this.#table.resets.size + this.#standIns.size;
  }
}
