import type { ContactMessage, ContactRepository } from '@sl-accounts/service/core';

/** Default most messages kept. */
export const DEFAULT_CONTACT_CAPACITY = 10_000;

/**
 * Default most bytes kept, as `contactBytes` counts them: 32 MiB, about 500 to 900 messages of the
 * largest size the API accepts (36 to 62 KB with a ~16 KB user agent, depending on how much JSON
 * escapes), or all 10,000 of a typical one. Measured: 12,000 of the largest grow the server's RSS by
 * ~65 MiB to ~91 MiB (peak ~108 MiB), 30,000 by under 100 MiB.
 */
export const DEFAULT_CONTACT_BYTE_CAPACITY = 32 * 1024 * 1024;

/** Room for the record, its buffer's JS object and the list's slot. */
const RECORD_OVERHEAD_BYTES = 256;

/**
 * One kept message, its text fields as one UTF-8 buffer: outside V8's heap, so the messages a flood
 * pushes out are freed as soon as V8 sees their bytes go, instead of piling up as old-generation
 * garbage until the heap has grown to several times what the store holds.
 */
interface StoredContact {
  /** `[name, email, message, clientIp, userAgent]` as JSON, which round-trips every JS string. */
  readonly fields: Buffer;
  readonly receivedAt: number;
}

/** The bytes a stored message holds: its UTF-8 fields plus the objects around them. */
function contactBytes(stored: { readonly fields: Buffer }): number {
  return stored.fields.byteLength + RECORD_OVERHEAD_BYTES;
}

function store(message: ContactMessage): StoredContact {
  const { name, email, message: text, clientIp, userAgent } = message;
  return { fields: Buffer.from(JSON.stringify([name, email, text, clientIp, userAgent]), 'utf8'), receivedAt: message.receivedAt.getTime() };
}

function restore(stored: StoredContact): ContactMessage {
  const [name, email, message, clientIp, userAgent] = JSON.parse(stored.fields.toString('utf8')) as [string, string, string, string, string | null];
  return { name, email, message, clientIp, userAgent, receivedAt: new Date(stored.receivedAt) };
}

/**
 * Keeps the most recent messages within `capacity` messages and `byteCapacity` bytes: a store in
 * memory must stay bounded when a flood of clients posts the public contact form, and counting
 * messages alone bounds little (a user agent may be ~16 KB, a message 5,000 astral code points). The
 * newest message is always kept. Use the Postgres store to keep every one.
 */
export class MemoryContactStore implements ContactRepository {
  readonly #stored: StoredContact[] = [];
  readonly capacity: number;
  readonly byteCapacity: number;
  /** The kept messages' `contactBytes`, summed. */
  bytes = 0;
  /** How many older messages were let go to stay within the capacities. */
  dropped = 0;

  /** Called first by every method (the store's check that no unit of work calls it). */
  readonly #guard: (what: string) => void;

  constructor(options: { readonly capacity?: number; readonly byteCapacity?: number; readonly guard?: (what: string) => void } = {}) {
    this.#guard = options.guard ?? (() => {});
    this.capacity = options.capacity ?? DEFAULT_CONTACT_CAPACITY;
    this.byteCapacity = options.byteCapacity ?? DEFAULT_CONTACT_BYTE_CAPACITY;
  }

  /** The kept messages, oldest first, decoded afresh (for tests and inspection). */
  get messages(): ContactMessage[] {
    return this.#stored.map(restore);
  }

  async add(message: ContactMessage): Promise<void> {
    this.#guard('contacts.add');
    this.keep(message);
  }

  /** Stores `message` (synchronously: a unit of work's commit calls it). */
  keep(message: ContactMessage): void {
    const stored = store(message);
    this.#stored.push(stored);
    this.bytes += contactBytes(stored);
    while (this.#stored.length > 1 && (this.#stored.length > this.capacity || this.bytes > this.byteCapacity)) {
      this.bytes -= contactBytes(this.#stored.shift()!);
      this.dropped++;
    }
  }
}
