/** What the contract and its case modules share: the store of the running case (types only). */
import type { AccountManager, ContactMessage, Store } from '@sl-accounts/service/core';

/**
 * What the contract reads of a store beyond its ports: contact messages, which nothing in the
 * service reads back (the operator reads the table, or their mails). Test-only: the adapter's tests
 * build it (from the store's own state, or with SQL); it is not a port, and no production code has it.
 * Every other write the contract reads back through the store itself.
 */
export interface StoreInspection {
  /** Every contact message the store keeps, as stored, in the order they were added. */
  contactMessages(): Promise<readonly ContactMessage[]>;
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
  /** The core's account rules over `store`, each change one unit of work: what the use cases run. */
  readonly accounts: AccountManager;
  readonly inspect: StoreInspection;
}
