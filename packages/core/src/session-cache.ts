import { LRUCache } from 'lru-cache';
import type { ManagedStore } from './account-manager.ts';
import type { SessionRepository, SessionWithUser, Store } from './store.ts';

/** Default bound on the sessions a cache holds. */
export const DEFAULT_SESSION_CACHE_SIZE = 50_000;
/** Default bound on the bytes a cache holds, as `entryBytes` estimates them. */
export const DEFAULT_SESSION_CACHE_BYTES = 32 * 1024 * 1024;
/** Default bound on how long an entry is answered from memory before the store is asked again. */
export const DEFAULT_SESSION_CACHE_MAX_AGE_MS = 60_000;
/** Default bound, in milliseconds, on how far the revocation feed may lag for the cache to answer. */
export const DEFAULT_SESSION_CACHE_STALENESS_MS = 100;

/** `cacheSessions`'s options. */
export interface SessionCacheOptions {
  /** Most sessions held; default `DEFAULT_SESSION_CACHE_SIZE`. */
  readonly maxEntries?: number;
  /** Most bytes held (see `entryBytes`); default `DEFAULT_SESSION_CACHE_BYTES`. */
  readonly maxBytes?: number;
  /**
   * The cache answers only while the revocation feed lags by at most this many milliseconds
   * (`SessionRevocations.lagMs`); otherwise every lookup goes to the store. This is the bound
   * on how long a session revoked elsewhere can still be accepted here. Default 100.
   */
  readonly stalenessMs?: number;
  /**
   * An entry older than this is read from the store again: a safety net for changes the feed cannot
   * report (triggers disabled by hand). Default `DEFAULT_SESSION_CACHE_MAX_AGE_MS`.
   */
  readonly maxAgeMs?: number;
  /**
   * Monotonic milliseconds, above 0 (lru-cache reads a fill time of 0 as none), for the entries' ages
   * (`maxAgeMs`) only; default `performance.now`. Tests move it.
   */
  readonly now?: () => number;
}

/** The cache's counters. */
export interface SessionCacheStats {
  /** Lookups answered from memory. */
  readonly hits: number;
  /** Lookups that asked the store while the cache was usable. */
  readonly misses: number;
  /** Lookups that asked the store because the feed lagged (the cache was emptied then). */
  readonly bypassed: number;
  readonly entries: number;
  readonly bytes: number;
}

/** A session cache in front of a store (see `cacheSessions`). */
export interface SessionCache {
  /**
   * The store with the cache in front: its `sessions.findWithUser` answers from memory where it can,
   * its deletes evict, and `forget` evicts what a unit of work ended. Everything else is the store's.
   */
  readonly store: ManagedStore;
  stats(): SessionCacheStats;
  /** Stops listening to the feed and empties the cache (the store itself stays open). */
  close(): void;
}

/** A store read in progress, shared by concurrent lookups of one digest. */
interface Read {
  readonly result: Promise<SessionWithUser | null>;
  /** Set when the digest is revoked while the read runs: its answer may predate the revocation. */
  revoked: boolean;
}

/**
 * Puts a bounded cache of sessions (token digest -> user and expiry) in front of any store's
 * sessions, kept honest by the store's revocation feed:
 *
 * - a hit is answered from memory only while the feed lags by at most `stalenessMs`; while it
 *   lags (a listening connection down, or reconnected and not yet confirmed), the cache is emptied
 *   and every lookup asks the store;
 * - a revoked digest is evicted as soon as the feed delivers it (`'all'` empties the cache), and a
 *   store read that was running when its digest was revoked does not fill the cache;
 * - deletes through it evict at once, before the store is asked, and so does what a unit of work
 *   ended, once the use case hands it over (`forget`);
 * - an entry is answered for at most `maxAgeMs` (a minute) before the store is asked again;
 * - only sessions that exist are cached (a random cookie cannot fill the cache), and the expiry is
 *   returned with the user, so the use case checks it against its clock on every hit.
 */
export function cacheSessions(store: Store, options: SessionCacheOptions = {}): SessionCache {
  const { revocations } = store;
  const sessions = store.sessions;
  const maxEntries = options.maxEntries ?? DEFAULT_SESSION_CACHE_SIZE;
  const maxBytes = options.maxBytes ?? DEFAULT_SESSION_CACHE_BYTES;
  const stalenessMs = options.stalenessMs ?? DEFAULT_SESSION_CACHE_STALENESS_MS;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_SESSION_CACHE_MAX_AGE_MS;
  const now = options.now ?? (() => performance.now());
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
  if (!(maxBytes > 0)) throw new RangeError('maxBytes must be positive');
  if (!(stalenessMs > 0)) throw new RangeError('stalenessMs must be positive');
  if (!(maxAgeMs > 0)) throw new RangeError('maxAgeMs must be positive');

  // Least recently used out first, by count and by estimated bytes; an entry past maxAgeMs is not
  // answered (lru-cache checks its age on every get, against `now`). The count is bounded in `fill`,
  // not with lru-cache's `max`: given `max`, lru-cache allocates and fills arrays for every slot up
  // front (20-30 ms for 50,000, measured), which every service paid at its start, each test's too.
  const entries = new LRUCache<string, SessionWithUser>({
    maxSize: maxBytes,
    sizeCalculation: (value, digest) => entryBytes(digest, value),
    ttl: maxAgeMs,
    // Every get reads `now` itself: ages follow it exactly, and no timer is set to expire a cached reading.
    ttlResolution: 0,
    perf: { now },
  });
  // Store reads in progress, shared by concurrent lookups of a digest. Hand-written rather than
  // lru-cache's `fetch`: a read its digest's revocation overtook must still answer its callers but
  // not fill the cache, and one that ended while the feed lagged likewise; `fetch` either rejects
  // every caller when its key is deleted mid-read or stores the value despite the deletion
  // (`ignoreFetchAbort`), and has no way to answer without storing. See docs/decisions/0029-session-cache-internals.md.
  const reads = new Map<string, Read>();
  let hits = 0;
  let misses = 0;
  let bypassed = 0;

  const caughtUp = () => revocations.lagMs() <= stalenessMs;

  // A read its digest's revocation overtook is marked (it fills nothing) and let go: the lookups that
  // joined it before the revocation was heard get its answer, and any lookup after asks the store afresh.
  function evict(digest: string): void {
    entries.delete(digest);
    const read = reads.get(digest);
    if (read) {
      read.revoked = true;
      reads.delete(digest);
    }
  }

  function flush(): void {
    entries.clear();
    for (const read of reads.values()) read.revoked = true;
    reads.clear();
  }

  function fill(digest: string, value: SessionWithUser): void {
    // Larger than maxBytes alone: lru-cache does not store it (and drops an older value of the key).
    entries.set(digest, Object.freeze(value));
    // The one just set is the most recently used: `pop` takes the least.
    while (entries.size > maxEntries) entries.pop();
  }

  const unsubscribe = revocations.subscribe({
    revoked(digests) {
      if (digests === 'all') flush();
      else for (const digest of digests) evict(digest);
    },
  });

  function read(digest: string): Promise<SessionWithUser | null> {
    const shared = reads.get(digest);
    if (shared) return shared.result;
    const pending: Read = {
      revoked: false,
      result: sessions.findWithUser(digest).then(
        (found) => {
          if (reads.get(digest) === pending) reads.delete(digest);
          // Filled only if nothing revoked it meanwhile and the feed is still caught up, so any
          // revocation committed after this read is either heard already or will be heard and evict it.
          if (found && !pending.revoked && caughtUp()) fill(digest, found);
          return found;
        },
        (error: unknown) => {
          if (reads.get(digest) === pending) reads.delete(digest);
          throw error;
        },
      ),
    };
    reads.set(digest, pending);
    return pending.result;
  }

  const cached: SessionRepository = {
    async findWithUser(digest) {
      if (!caughtUp()) {
        if (entries.size > 0 || reads.size > 0) flush();
        bypassed++;
        return sessions.findWithUser(digest);
      }
      const entry = entries.get(digest);
      if (entry) {
        hits++;
        return entry;
      }
      misses++;
      return read(digest);
    },

    // The sessions an insert's unit of work ends reach the cache through `forget` and the feed.
    insert: (session) => sessions.insert(session),

    listByUser: (userId, at) => sessions.listByUser(userId, at),

    // A step-up is not part of what the cache keeps: it is read from the store each time.
    recordStepUp: (digest, kind, at) => sessions.recordStepUp(digest, kind, at),

    findStepUp: (digest) => sessions.findStepUp(digest),

    async delete(digest) {
      evict(digest);
      return sessions.delete(digest);
    },

    async deleteByUser(userId, kept) {
      const ended = await sessions.deleteByUser(userId, kept);
      for (const digest of ended) evict(digest);
      return ended;
    },
  };

  // Delegates by getters: a store may be a class whose members are not own properties.
  const front: ManagedStore = {
    get users() {
      return store.users;
    },
    sessions: cached,
    get oneTimeTokens() {
      return store.oneTimeTokens;
    },
    get identities() {
      return store.identities;
    },
    get totp() {
      return store.totp;
    },
    get recoveryCodes() {
      return store.recoveryCodes;
    },
    get activity() {
      return store.activity;
    },
    get directory() {
      return store.directory;
    },
    get contacts() {
      return store.contacts;
    },
    get passkeys() {
      return store.passkeys;
    },
    get outbox() {
      return store.outbox;
    },
    get rateLimiter() {
      return store.rateLimiter;
    },
    get deviceKeys() {
      return store.deviceKeys;
    },
    revocations,
    transaction: (work) => store.transaction(work),
    async deleteExpired(at) {
      for (const [digest, entry] of entries.entries()) if (entry.expiresAt.getTime() <= at.getTime()) evict(digest);
      return store.deleteExpired(at);
    },
    ping: () => store.ping(),
    close: () => store.close(),
    forget(digests) {
      for (const digest of digests) evict(digest);
    },
  };

  return {
    store: front,
    stats: () => ({ hits, misses, bypassed, entries: entries.size, bytes: entries.calculatedSize }),
    close() {
      unsubscribe();
      flush();
    },
  };
}

/**
 * What an entry costs, estimated: its strings at two bytes a unit (V8 keeps some at one) plus the
 * cache's slots for it, the frozen value, its user and its Date.
 */
export function entryBytes(digest: string, value: SessionWithUser): number {
  return 2 * (digest.length + value.user.name.length + value.user.email.length) + 240;
}
