import type { DeviceKeyStore, Store, UserStore } from '@sl-accounts/core';
import { MemoryContactStore } from './contact-store.ts';
import { MemoryEmailVerificationStore } from './email-token-store.ts';
import { MemoryOutbox } from './outbox.ts';
import { MemoryRateLimiter } from './rate-limiter.ts';
import { MemoryPasswordResetStore } from './reset-store.ts';
import { MemorySessionStore } from './session-store.ts';
import { MemoryUserStore, UserTable } from './user-store.ts';

/**
 * In-memory adapters. Every method is async like a real store's, so a missing `await` fails here
 * too. State lives in Maps and is lost with the process; expired entries go at the next sweep.
 */

/**
 * Every store port in memory. The sessions, contact messages, limiter and outbox have their concrete
 * types, so tests can look inside (how many sessions are kept, the messages as stored).
 */
export interface MemoryStore extends Store {
  readonly users: UserStore;
  readonly sessions: MemorySessionStore;
  readonly contacts: MemoryContactStore;
  readonly resets: MemoryPasswordResetStore;
  readonly rateLimiter: MemoryRateLimiter;
  readonly outbox: MemoryOutbox;
}

/** Bounds of a memory store: what it keeps at most. */
export interface MemoryStoreOptions {
  /** Contact messages kept (the most recent ones); default 10000. */
  readonly contactCapacity?: number;
  /** Bytes of contact messages kept (their text as UTF-8, plus 256 each); default 32 MiB. */
  readonly contactByteCapacity?: number;
  /** Mails of each kind (contact, unverified, security) the outbox keeps unsent (the kind's oldest go first past it); default 1000. */
  readonly outboxCapacity?: number;
  /**
   * Rate-limit windows kept, least recently used dropped first, never one that refuses until it
   * ends; default `DEFAULT_RATE_LIMIT_KEYS` (100,000).
   */
  readonly rateLimitKeys?: number;
}

/** A fresh, empty in-memory store: every port the core needs, for tests and embedding. */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  // One outbox for every store that mails: each gets this instance and enqueues in its own write.
  const outbox = new MemoryOutbox(options.outboxCapacity === undefined ? {} : { capacity: options.outboxCapacity });
  // One table for both: the session store joins on the users the user store writes.
  const users = new UserTable(outbox);
  const sessions = new MemorySessionStore(users);
  return {
    users: new MemoryUserStore(users),
    sessions,
    revocations: sessions.revocations,
    outbox,
    contacts: new MemoryContactStore(outbox, {
      ...(options.contactCapacity === undefined ? {} : { capacity: options.contactCapacity }),
      ...(options.contactByteCapacity === undefined ? {} : { byteCapacity: options.contactByteCapacity }),
    }),
    resets: new MemoryPasswordResetStore(users, outbox),
    verifications: new MemoryEmailVerificationStore(users, outbox),
    rateLimiter: new MemoryRateLimiter(options.rateLimitKeys),
    deviceKeys: memoryDeviceKeys(),
    ping: async () => {},
    close: async () => {},
  };
}

/** One key for the life of the store: only this process uses it. */
function memoryDeviceKeys(): DeviceKeyStore {
  let key: string | undefined;
  return { getOrCreate: async (candidate) => (key ??= candidate) };
}
