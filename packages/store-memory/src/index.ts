/**
 * The memory store: every port of the core in process memory, bounded, for tests, trials and
 * embedding (nothing survives a restart).
 */

// The whole store.
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from './memory-store.ts';

// The parts that stand alone, for a host that wants only one of them in memory.
export { DEFAULT_CONTACT_BYTE_CAPACITY, DEFAULT_CONTACT_CAPACITY, MemoryContactStore } from './contact-store.ts';
export { DEFAULT_RATE_LIMIT_KEYS, MemoryRateLimiter } from './rate-limiter.ts';
export { DEFAULT_OUTBOX_CAPACITY, MemoryOutbox } from './outbox.ts';
