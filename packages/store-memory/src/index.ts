// The memory store: createMemoryStore for every port at once; the adapters that stand alone (contact
// messages, the limiter, the outbox) for a host that wants only one of them in memory.
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from './memory-store.ts';
// Only a type: a session store shares its tables with the user store, so createMemoryStore makes it.
export type { MemorySessionStore } from './session-store.ts';
export { DEFAULT_CONTACT_BYTE_CAPACITY, DEFAULT_CONTACT_CAPACITY, MemoryContactStore } from './contact-store.ts';
export { DEFAULT_RATE_LIMIT_KEYS, MemoryRateLimiter } from './rate-limiter.ts';
export { DEFAULT_OUTBOX_CAPACITY, MemoryOutbox } from './outbox.ts';
