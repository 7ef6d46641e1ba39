/**
 * What the operator's tools read beyond the use cases' own repositories (issue 43): accounts found by
 * the start of their address, and the contact messages sent from an address (for the owner's
 * export). Read-only, outside units of work: one statement each.
 */
import type { ContactMessage, UserRecord } from './store.ts';

export interface AccountDirectory {
  /**
   * Accounts whose (normalised) address starts with `prefix`, by id ascending, with ids above
   * `after` (the cursor: the last id of the page before); at most `limit`.
   */
  search(prefix: string, after: number | null, limit: number): Promise<readonly UserRecord[]>;
  /** The contact messages stored with this (normalised) address as the sender's, oldest first; at most `limit`. */
  contactsFrom(email: string, limit: number): Promise<readonly ContactMessage[]>;
}
