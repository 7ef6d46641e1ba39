import type { ContactMessage, ContactStore } from '@sl/core';

/**
 * Keeps the most recent `capacity` messages: a store in memory must stay bounded when a flood of
 * clients posts the public contact form. Use the Postgres store to keep every message.
 */
export class MemoryContactStore implements ContactStore {
  /** The kept messages, oldest first. */
  readonly messages: ContactMessage[] = [];
  readonly capacity: number;
  /** How many older messages were let go to stay within `capacity`. */
  dropped = 0;

  constructor(options: { readonly capacity?: number } = {}) {
    this.capacity = options.capacity ?? 10_000;
  }

  async add(message: ContactMessage): Promise<void> {
    this.messages.push(message);
    if (this.messages.length > this.capacity) {
      this.messages.shift();
      this.dropped++;
    }
  }
}
