import { randomUUID } from 'node:crypto';
import type { MailOutbox, OutgoingMail, QueuedMail } from '@sl-accounts/core';

interface Entry {
  readonly mail: OutgoingMail;
  readonly createdAt: Date;
  dueAt: number;
  attempts: number;
  lastError: string | null;
}

/**
 * Default most mails kept. The largest contact mail the API lets through is ~21 KB in memory (5,000
 * astral characters are 10,000 UTF-16 units, plus the name and the frame), so a flood of the
 * public form while SMTP is down holds ~21 MB at most (computed from the bounds, not measured).
 */
export const DEFAULT_OUTBOX_CAPACITY = 1_000;

/**
 * The memory store's outbox. Store methods that cause a mail (a contact message, a reset request)
 * hold this same instance and call `enqueue` in the synchronous step that writes their own data, so
 * both happen or neither. Lost with the process, like everything in the memory store.
 */
export class MemoryOutbox implements MailOutbox {
  readonly #entries = new Map<string, Entry>();
  readonly capacity: number;
  /** How many of the oldest mails were let go, unsent, to stay within the capacity. */
  dropped = 0;

  constructor(options: { readonly capacity?: number } = {}) {
    this.capacity = options.capacity ?? DEFAULT_OUTBOX_CAPACITY;
  }

  /**
   * Queues `mail`, due at `now`. Synchronous, so a caller's write and this one are one step. Past
   * the capacity the oldest queued mail is let go: a store in memory must stay bounded (use the
   * Postgres store to keep every mail).
   */
  enqueue(mail: OutgoingMail, now: Date): void {
    this.#entries.set(randomUUID(), { mail: { ...mail }, createdAt: now, dueAt: now.getTime(), attempts: 0, lastError: null });
    // A Map iterates in insertion order: the first key is the oldest mail.
    for (const id of this.#entries.keys()) {
      if (this.#entries.size <= this.capacity) break;
      this.#entries.delete(id);
      this.dropped++;
    }
  }

  async claim(now: Date, options: { readonly limit: number; readonly leaseMs: number }): Promise<readonly QueuedMail[]> {
    const due = [...this.#entries].filter(([, e]) => e.dueAt <= now.getTime()).sort(([, a], [, b]) => a.dueAt - b.dueAt);
    const claimed = due.slice(0, options.limit).sort(([, a], [, b]) => a.createdAt.getTime() - b.createdAt.getTime());
    return claimed.map(([id, entry]) => {
      entry.dueAt = now.getTime() + options.leaseMs;
      entry.attempts++;
      return { ...entry.mail, id, attempts: entry.attempts, createdAt: entry.createdAt };
    });
  }

  async markSent(id: string): Promise<void> {
    this.#entries.delete(id);
  }

  async retryLater(id: string, attempts: number, retryAt: Date, error: string): Promise<void> {
    const entry = this.#entries.get(id);
    if (!entry || entry.attempts !== attempts) return;
    entry.dueAt = retryAt.getTime();
    entry.lastError = error;
  }

  async depth(): Promise<number> {
    return this.#entries.size;
  }
}
