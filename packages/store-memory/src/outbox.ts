import { randomUUID } from 'node:crypto';
import type { MailOutbox, OutgoingMail, QueuedMail } from '@sl/core';

interface Entry {
  readonly mail: OutgoingMail;
  readonly createdAt: Date;
  dueAt: number;
  attempts: number;
  lastError: string | null;
}

/**
 * The memory store's outbox. Store methods that cause a mail (a contact message, a reset request)
 * hold this same instance and call `enqueue` in the synchronous step that writes their own data, so
 * both happen or neither. Lost with the process, like everything in the memory store.
 */
export class MemoryOutbox implements MailOutbox {
  readonly #entries = new Map<string, Entry>();

  /** Queues `mail`, due at `now`. Synchronous, so a caller's write and this one are one step. */
  enqueue(mail: OutgoingMail, now: Date): void {
    this.#entries.set(randomUUID(), { mail: { ...mail }, createdAt: now, dueAt: now.getTime(), attempts: 0, lastError: null });
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
