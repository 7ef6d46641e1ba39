export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from './memory-store.ts';
export { MemoryUserStore } from './user-store.ts';
export { MemorySessionStore } from './session-store.ts';
export { DEFAULT_CONTACT_BYTE_CAPACITY, DEFAULT_CONTACT_CAPACITY, MemoryContactStore, contactBytes } from './contact-store.ts';
export { DEFAULT_RATE_LIMIT_KEYS, MemoryRateLimiter } from './rate-limiter.ts';
export { MemoryPasswordResetStore } from './reset-store.ts';
export { DEFAULT_OUTBOX_CAPACITY, MemoryOutbox } from './outbox.ts';
