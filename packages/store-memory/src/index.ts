export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from './memory-store.ts';
export { MemoryUserStore } from './user-store.ts';
export { MemorySessionStore } from './session-store.ts';
export { MemoryContactStore } from './contact-store.ts';
export { MemoryRateLimiter } from './rate-limiter.ts';
