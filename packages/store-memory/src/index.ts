/**
 * The memory store: every port of the core in process memory, bounded, for tests, trials and
 * embedding (nothing survives a restart).
 */

// The whole store.
export {
  /** Every port at once, sharing their tables. */
  createMemoryStore,
  /** What `createMemoryStore` answers: every port, each adapter typed as itself. */
  type MemoryStore,
  /** Its bounds: contact messages and their bytes, outbox size, rate-limit windows. */
  type MemoryStoreOptions,
} from './memory-store.ts';
export type {
  /** The session port in memory; only a type, since it shares the user store's tables (`createMemoryStore` makes it). */
  MemorySessionStore,
} from './session-store.ts';

// The adapters that stand alone, for a host that wants only one of them in memory.
export {
  /** Most bytes of contact-message text kept by default. */
  DEFAULT_CONTACT_BYTE_CAPACITY,
  /** Most contact messages kept by default. */
  DEFAULT_CONTACT_CAPACITY,
  /** Contact messages in memory, the most recent within both bounds. */
  MemoryContactStore,
} from './contact-store.ts';
export {
  /** Most rate-limit windows kept by default (least recently used dropped first). */
  DEFAULT_RATE_LIMIT_KEYS,
  /** The rate limiter in memory (lru-cache). */
  MemoryRateLimiter,
} from './rate-limiter.ts';
export {
  /** Most unsent mails kept by default (the oldest go first). */
  DEFAULT_OUTBOX_CAPACITY,
  /** The mail outbox in memory. */
  MemoryOutbox,
} from './outbox.ts';
