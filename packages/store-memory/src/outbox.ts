import { randomUUID } from 'node:crypto';
import { MAIL_KINDS, type DroppedMail, type MailKind, type MailOutbox, type MailToQueue, type OutgoingMail, type QueuedMail } from '@sl-accounts/service/core';

interface Entry {
  readonly mail: OutgoingMail & { readonly kind: MailKind };
  readonly createdAt: Date;
  dueAt: number;
  attempts: number;
  lastError: string | null;
}

/**
 * Default most mails kept of each kind (contact, unverified, security). The largest contact mail the
 * API lets through is ~21 KB in memory (5,000 astral characters are 10,000 UTF-16 units, plus the
 * name and the frame), so a flood of the public form while SMTP is down holds ~21 MB at most; a
 * link or a notice is under 1 KB (computed from the bounds, not measured).
 */
export const DEFAULT_OUTBOX_CAPACITY = 1_000;

/** The order in which kinds are sent: security mail first, contact mail last (MAIL_KINDS). */
const rank = (entry: Entry) => MAIL_KINDS.indexOf(entry.mail.kind);

const emptyLanes = (): Record<MailKind, Map<string, Entry>> => ({ security: new Map(), unverified: new Map(), contact: new Map() });

/**
 * The memory store's outbox. A unit of work's mails are queued here (`enqueue`) when it commits, so
 * they go with what caused them or not at all. Lost with the process, like everything in the memory
 * store.
 *
 * Each kind of mail has its own lane and bound, so a flood of one kind lets go only the oldest of
 * that kind: contact mail (any visitor's) and `unverified` mail (a signup's verification link, which
 * any stranger can cause for a new address) never push out the security mail of existing accounts
 * (a reset link, a notice to a verified address). What a bound lets go is counted and told to
 * `onDropped`'s listeners (the server logs a summary and counts each in its metrics).
 */
export class MemoryOutbox implements MailOutbox {
  /** Per kind, in insertion order: the first key is the kind's oldest mail. */
  readonly #lanes = emptyLanes();
  /** Stand-ins (see `MailToQueue`): their due times, under the same bound, removed by `deleteStandIns`. */
  readonly #standIns = new Map<string, number>();
  readonly #listeners = new Set<(mail: DroppedMail) => void>();
  /** Mails kept at most, per kind. */
  readonly capacity: number;
  /** Mails let go, unsent, to stay within the capacity, in all. */
  dropped = 0;
  /** The same, per kind. */
  readonly droppedByKind: Record<MailKind, number> = { security: 0, unverified: 0, contact: 0 };

  /** Called first by every method (the store's check that no unit of work calls it). */
  readonly #guard: (what: string) => void;

  constructor(options: { readonly capacity?: number; readonly guard?: (what: string) => void } = {}) {
    this.#guard = options.guard ?? (() => {});
    this.capacity = options.capacity ?? DEFAULT_OUTBOX_CAPACITY;
    if (!Number.isInteger(this.capacity) || this.capacity < 1) throw new RangeError('capacity must be a positive integer');
  }

  /**
   * Queues `mail`, due at `now`. Synchronous, so a caller's write and this one are one step. Past
   * the capacity the oldest queued mail of the same kind is let go: a store in memory must stay
   * bounded (use the Postgres store to keep every mail).
   */
  enqueue(mail: OutgoingMail, now: Date): void {
    const kind = mail.kind ?? 'security';
    const lane = this.#lanes[kind];
    lane.set(randomUUID(), { mail: { ...mail, kind }, createdAt: now, dueAt: now.getTime(), attempts: 0, lastError: null });
    for (const [id, entry] of lane) {
      if (lane.size <= this.capacity) break;
      lane.delete(id);
      this.dropped++;
      const droppedOfKind = ++this.droppedByKind[kind];
      for (const listener of this.#listeners) listener({ id, kind, createdAt: entry.createdAt, droppedOfKind });
    }
  }

  async add(mail: MailToQueue): Promise<void> {
    this.#guard('outbox.add');
    this.queue(mail);
  }

  /** Queues `mail`, or a stand-in when it has no recipient: the same steps either way. Synchronous. */
  queue(mail: MailToQueue): void {
    const { queuedAt, to, ...rest } = mail;
    if (to === null) this.enqueueStandIn(queuedAt);
    else this.enqueue({ ...rest, to }, queuedAt);
  }

  /** Queues a stand-in (see `MailToQueue`): the same steps as `enqueue`, nothing to send. */
  enqueueStandIn(now: Date): void {
    this.#standIns.set(randomUUID(), now.getTime());
    for (const id of this.#standIns.keys()) {
      if (this.#standIns.size <= this.capacity) break;
      this.#standIns.delete(id);
    }
  }

  onDropped(listener: (mail: DroppedMail) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Removes the stand-ins due at `now`; returns how many. */
  deleteStandIns(now: Date): number {
    let deleted = 0;
    for (const [id, dueAt] of this.#standIns) {
      if (dueAt > now.getTime()) continue;
      this.#standIns.delete(id);
      deleted++;
    }
    return deleted;
  }

  async claim(now: Date, options: { readonly limit: number; readonly leaseMs: number }): Promise<readonly QueuedMail[]> {
    this.#guard('outbox.claim');
    const t = now.getTime();
    const due = MAIL_KINDS.flatMap((kind) => [...this.#lanes[kind]]).filter(([, e]) => e.dueAt <= t)
      // Security mail first: after an outage it does not wait behind a backlog of other mail.
      .sort(([, a], [, b]) => rank(a) - rank(b) || a.dueAt - b.dueAt || a.createdAt.getTime() - b.createdAt.getTime());
    const claimed = due.slice(0, options.limit).sort(([, a], [, b]) => a.createdAt.getTime() - b.createdAt.getTime());
    return claimed.map(([id, entry]) => {
      entry.dueAt = t + options.leaseMs;
      entry.attempts++;
      return { ...entry.mail, id, attempts: entry.attempts, createdAt: entry.createdAt };
    });
  }

  async markSent(id: string): Promise<void> {
    this.#guard('outbox.markSent');
    for (const kind of MAIL_KINDS) if (this.#lanes[kind].delete(id)) return;
  }

  async retryLater(id: string, attempts: number, retryAt: Date, error: string): Promise<void> {
    this.#guard('outbox.retryLater');
    const entry = MAIL_KINDS.map((kind) => this.#lanes[kind].get(id)).find((e) => e !== undefined);
    if (!entry || entry.attempts !== attempts) return;
    entry.dueAt = retryAt.getTime();
    entry.lastError = error;
  }

  async depth(): Promise<number> {
    this.#guard('outbox.depth');
    return MAIL_KINDS.reduce((sum, kind) => sum + this.#lanes[kind].size, 0);
  }

  /** Stand-ins kept (for tests). */
  get standIns(): number {
    return this.#standIns.size;
  }
}
