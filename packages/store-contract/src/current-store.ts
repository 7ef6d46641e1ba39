/** What the contract and its case modules share: the store of the running case (types only). */
import type { ContactMessage, Store } from '@sl-accounts/core';

/**
 * What the contract reads of a store beyond its ports: writes that no port reads back. Test-only:
 * the adapter's tests build it (from the store's own state, or with SQL); it is not a port, and no
 * production code has it.
 */
export interface StoreInspection {
  /** Every contact message the store keeps, as stored, in the order they were added. */
  contactMessages(): Promise<readonly ContactMessage[]>;
  /**
   * What reset requests left in the store: reset tokens (bound to an account or to none) and outbox
   * entries (mails and the stand-ins of requests for unknown addresses), each counted once.
   */
  resetFootprint(): Promise<{ readonly tokens: number; readonly outboxEntries: number }>;
  /**
   * The store's bounds, where it keeps at most so many (a store in memory): limiter windows that do
   * not hold, and mails of one kind in the outbox. The cases flood past them; for a store without
   * bounds they flood a little.
   */
  readonly bounds?: { readonly rateLimitKeys?: number; readonly outboxMailsPerKind?: number };
}

/** The store of the running case, for the case modules (read inside a case, never while collecting). */
export interface CurrentStore {
  readonly store: Store;
  readonly inspect: StoreInspection;
}
