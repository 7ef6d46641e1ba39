import { describe, expect, it, vi } from 'vitest';
import {
  InProcessRevocations,
  Pbkdf2PasswordHasher,
  StoreUnavailable,
  Unauthenticated,
  cacheSessions,
  createAccounts,
  digestToken,
  randomTokens,
  type RevocationListener,
  type SessionRepository,
  type SessionRevocations,
  type SessionWithUser,
  type Store,
} from '@sl-accounts/service/core';
import { ManualClock } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

/** A feed the test drives: what it delivers, and how far behind it says it is. */
class FakeFeed implements SessionRevocations {
  readonly listeners = new Set<RevocationListener>();
  lag = 0;
  subscribe(listener: RevocationListener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  lagMs() {
    return this.lag;
  }
  deliver(digests: readonly string[] | 'all') {
    for (const l of this.listeners) l.revoked(digests);
  }
}

const digest = (n: number) => n.toString(16).padStart(64, '0');
const session = (id: number): SessionWithUser => ({ user: { id, name: `User ${id}`, email: `u${id}@example.com`, emailVerified: false }, expiresAt: new Date('2030-01-01T00:00:00Z') });

/** A store's sessions whose rows the test sets, counting reads; a read can be held open. */
function fakeStore() {
  const rows = new Map<string, SessionWithUser>();
  let gate: Promise<void> | undefined;
  const store = {
    rows,
    findWithUser: vi.fn(async (d: string) => {
      const found = rows.get(d) ?? null;
      await gate;
      return found;
    }),
    insert: vi.fn(async () => true),
    delete: vi.fn(async (d: string) => {
      const row = rows.get(d);
      rows.delete(d);
      return row ? { expiresAt: row.expiresAt } : null;
    }),
    /** The store's sweep (of which the cache sees only what it forwards). */
    deleteExpired: vi.fn(async () => ({ sessions: 0, standIns: 0, oneTimeTokens: {} })),
    listByUser: vi.fn(async () => []),
    recordStepUp: vi.fn(async () => true),
    findStepUp: vi.fn(async () => null),
    /** Deletes the rows named in `kept.except` (here: a comma list of digests) and returns them. */
    deleteByUser: vi.fn(async (_userId: number, kept?: { except?: string | null }) => (kept?.except ?? '').split(',').filter((d) => rows.delete(d))),
    /** Holds every read until the returned function is called. */
    hold() {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  } satisfies SessionRepository & Record<string, unknown>;
  return store;
}

/**
 * `cacheSessions` over a store that has these sessions and this feed (nothing else of it is used),
 * seen as the session repository it puts in front, with the cache's own members beside.
 */
function cached(sessions: ReturnType<typeof fakeStore>, feed: FakeFeed, options: Parameters<typeof cacheSessions>[1]) {
  const cache = cacheSessions({ sessions, revocations: feed, deleteExpired: sessions.deleteExpired } as unknown as Store, options);
  const front = cache.store;
  return {
    findWithUser: (d: string) => front.sessions.findWithUser(d),
    delete: (d: string) => front.sessions.delete(d),
    deleteByUser: (userId: number, digests: string) => front.sessions.deleteByUser(userId, { except: digests }),
    deleteExpired: (at: Date) => front.deleteExpired(at),
    forget: (digests: readonly string[]) => front.forget!(digests),
    stats: () => cache.stats(),
    close: () => cache.close(),
  };
}

function setup(options: { maxEntries?: number; maxBytes?: number } = {}) {
  const store = fakeStore();
  const feed = new FakeFeed();
  const cache = cached(store, feed, { stalenessMs: 100, ...options });
  return { store, feed, cache, lagging: (ms: number) => void (feed.lag = ms) };
}

describe('cacheSessions', () => {
  it('answers a known session from memory while the feed is caught up', async () => {
    const { store, cache } = setup();
    store.rows.set(digest(1), session(1));
    expect(await cache.findWithUser(digest(1))).toEqual(session(1));
    expect(await cache.findWithUser(digest(1))).toEqual(session(1));
    expect(store.findWithUser).toHaveBeenCalledTimes(1);
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1, bypassed: 0, entries: 1 });
  });

  it('asks the store again for an entry older than maxAgeMs', async () => {
    const store = fakeStore();
    const feed = new FakeFeed();
    let t = 5_000;
    const cache = cached(store, feed, { stalenessMs: 100, maxAgeMs: 1_000, now: () => t });
    store.rows.set(digest(1), session(1));
    await cache.findWithUser(digest(1));
    t += 1_000;
    await cache.findWithUser(digest(1));
    expect(store.findWithUser).toHaveBeenCalledTimes(1);
    store.rows.delete(digest(1)); // deleted with nothing announced (triggers disabled by hand)
    t += 1;
    expect(await cache.findWithUser(digest(1))).toBeNull();
    expect(store.findWithUser).toHaveBeenCalledTimes(2);
  });

  it('never caches an unknown session, so random cookies cannot fill it', async () => {
    const { store, cache } = setup();
    for (let i = 0; i < 10; i++) expect(await cache.findWithUser(digest(i))).toBeNull();
    expect(store.findWithUser).toHaveBeenCalledTimes(10);
    expect(cache.stats().entries).toBe(0);
  });

  it('evicts a digest the feed reports, and empties itself on "all"', async () => {
    const { store, feed, cache } = setup();
    store.rows.set(digest(1), session(1));
    store.rows.set(digest(2), session(2));
    await cache.findWithUser(digest(1));
    await cache.findWithUser(digest(2));
    store.rows.delete(digest(1)); // deleted elsewhere
    feed.deliver([digest(1)]);
    expect(await cache.findWithUser(digest(1))).toBeNull();
    expect(await cache.findWithUser(digest(2))).toEqual(session(2));
    expect(store.findWithUser).toHaveBeenCalledTimes(3);

    store.rows.set(digest(2), { ...session(2), user: { ...session(2).user, name: 'Renamed' } });
    feed.deliver('all');
    expect(cache.stats().entries).toBe(0);
    expect((await cache.findWithUser(digest(2)))?.user.name).toBe('Renamed');
  });

  it('asks the store while the feed lags, empties itself, and fills again once caught up', async () => {
    const { store, cache, lagging } = setup();
    store.rows.set(digest(1), session(1));
    await cache.findWithUser(digest(1));
    expect(cache.stats().entries).toBe(1);

    lagging(100); // exactly the bound: still caught up
    await cache.findWithUser(digest(1));
    expect(store.findWithUser).toHaveBeenCalledTimes(1);
    expect(cache.stats().hits).toBe(1);

    lagging(101); // the feed missed its confirmation: no answer from memory
    store.rows.delete(digest(1)); // and the revocation was never delivered
    expect(await cache.findWithUser(digest(1))).toBeNull();
    expect(cache.stats()).toMatchObject({ entries: 0, bypassed: 1 });
    store.rows.set(digest(1), session(1));
    await cache.findWithUser(digest(1));
    expect(cache.stats().entries).toBe(0); // not filled while lagging

    lagging(50);
    await cache.findWithUser(digest(1));
    await cache.findWithUser(digest(1));
    expect(cache.stats()).toMatchObject({ entries: 1, hits: 2 });
  });

  it('does not fill from a read that was running when its digest was revoked', async () => {
    const { store, feed, cache } = setup();
    store.rows.set(digest(1), session(1));
    const release = store.hold();
    const lookup = cache.findWithUser(digest(1)); // read the row before the delete
    await vi.waitFor(() => expect(store.findWithUser).toHaveBeenCalledTimes(1));
    store.rows.delete(digest(1));
    feed.deliver([digest(1)]); // delivered before the read answers
    release();
    expect(await lookup).toEqual(session(1)); // the store's answer stands for that one lookup
    expect(cache.stats().entries).toBe(0);
    expect(await cache.findWithUser(digest(1))).toBeNull();
  });

  it('does not fill from a read that ended after the feed began to lag', async () => {
    const { store, cache, lagging } = setup();
    store.rows.set(digest(1), session(1));
    const release = store.hold();
    const lookup = cache.findWithUser(digest(1));
    lagging(500);
    release();
    await lookup;
    expect(cache.stats().entries).toBe(0);
  });

  it('shares one store read among concurrent lookups of a digest', async () => {
    const { store, cache } = setup();
    store.rows.set(digest(1), session(1));
    const release = store.hold();
    const lookups = Array.from({ length: 5 }, () => cache.findWithUser(digest(1)));
    release();
    expect(await Promise.all(lookups)).toEqual(Array(5).fill(session(1)));
    expect(store.findWithUser).toHaveBeenCalledTimes(1);
  });

  it('passes a store failure on and caches nothing', async () => {
    const { store, cache } = setup();
    store.findWithUser.mockRejectedValueOnce(new StoreUnavailable());
    await expect(cache.findWithUser(digest(1))).rejects.toBeInstanceOf(StoreUnavailable);
    store.rows.set(digest(1), session(1));
    expect(await cache.findWithUser(digest(1))).toEqual(session(1));
  });

  it('evicts on its own delete before the store is asked, and on the sweep', async () => {
    const { store, cache } = setup();
    store.rows.set(digest(1), session(1));
    store.rows.set(digest(2), { ...session(2), expiresAt: new Date('2020-01-01T00:00:00Z') });
    await cache.findWithUser(digest(1));
    await cache.findWithUser(digest(2));
    store.delete.mockImplementationOnce(async () => {
      expect(cache.stats().entries).toBe(1); // already gone from memory
      return null;
    });
    await cache.delete(digest(1));
    await cache.deleteExpired(new Date('2026-01-01T00:00:00Z'));
    expect(cache.stats().entries).toBe(0);
    expect(store.deleteExpired).toHaveBeenCalledTimes(1);
  });

  it('evicts what deleteByUser ended and what it is told to forget, without waiting for the feed', async () => {
    const { store, cache } = setup();
    for (const n of [1, 2, 3]) store.rows.set(digest(n), session(n));
    for (const n of [1, 2, 3]) await cache.findWithUser(digest(n));
    expect(cache.stats().entries).toBe(3);
    expect(await cache.deleteByUser(1, digest(1))).toEqual([digest(1)]);
    expect(await cache.findWithUser(digest(1))).toBeNull();
    // Ended in a unit of work (a password change): gone from the store, and told to the cache.
    store.rows.delete(digest(2));
    cache.forget([digest(2)]);
    expect(await cache.findWithUser(digest(2))).toBeNull();
    expect(await cache.findWithUser(digest(3))).toEqual(session(3));
  });

  it('holds at most maxEntries, sparing recently used entries', async () => {
    const { store, cache } = setup({ maxEntries: 3 });
    for (let i = 1; i <= 5; i++) store.rows.set(digest(i), session(i));
    for (let i = 1; i <= 3; i++) await cache.findWithUser(digest(i));
    await cache.findWithUser(digest(1)); // used: gets a second chance
    await cache.findWithUser(digest(4));
    await cache.findWithUser(digest(5));
    expect(cache.stats().entries).toBe(3);
    store.findWithUser.mockClear();
    await cache.findWithUser(digest(1));
    expect(store.findWithUser).not.toHaveBeenCalled();
    await cache.findWithUser(digest(2));
    expect(store.findWithUser).toHaveBeenCalledTimes(1);
  });

  it('holds at most maxBytes', async () => {
    const { store, cache } = setup({ maxBytes: 2_000 });
    for (let i = 1; i <= 20; i++) {
      store.rows.set(digest(i), session(i));
      await cache.findWithUser(digest(i));
    }
    const { entries, bytes } = cache.stats();
    expect(bytes).toBeLessThanOrEqual(2_000);
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThan(20);
  });

  it('stops listening on close', async () => {
    const { feed, cache } = setup();
    expect(feed.listeners.size).toBe(1);
    cache.close();
    expect(feed.listeners.size).toBe(0);
  });
});

describe('the session cache under the use cases', () => {
  async function service() {
    const store = createMemoryStore();
    const clock = new ManualClock();
    const ports = { hasher: new Pbkdf2PasswordHasher({ iterations: 1 }), clock, tokens: randomTokens };
    // Two instances over one store, each with its own cache, as two processes on one database.
    const a = createAccounts({ ...ports, store: cacheSessions(store).store });
    const bSessions = cacheSessions(store);
    const b = createAccounts({ ...ports, store: bSessions.store });
    const { session } = await a.signup({ name: 'Ada', email: 'ada@example.com', password: 'cached sessions' }, { clientIp: '192.0.2.1' });
    return { a, b, bSessions, clock, token: session.token };
  }

  it('a logout through one instance is refused by the other, whose cache held the session', async () => {
    const { a, b, bSessions, token } = await service();
    await b.me({ sessionToken: token });
    await b.me({ sessionToken: token });
    expect(bSessions.stats().hits).toBe(1);
    await a.logout({ sessionToken: token });
    await expect(b.me({ sessionToken: token })).rejects.toBeInstanceOf(Unauthenticated);
  });

  it('a cached session is refused once it expires, and is deleted', async () => {
    const { b, bSessions, clock, token } = await service();
    await b.me({ sessionToken: token });
    clock.advance(7 * 24 * 60 * 60 * 1000);
    await expect(b.me({ sessionToken: token })).rejects.toBeInstanceOf(Unauthenticated);
    expect(bSessions.stats().entries).toBe(0);
    expect(digestToken(token)).toHaveLength(64);
  });

  it('the in-process feed of a store reports each deletion, the sweep included', async () => {
    const feed = new InProcessRevocations();
    const heard: (readonly string[] | 'all')[] = [];
    feed.subscribe({ revoked: (d) => heard.push(d) });
    feed.subscribe({
      revoked: () => {
        throw new Error('a failing listener');
      },
    });
    feed.publish([digest(1)]);
    feed.publish([]);
    feed.publish('all');
    expect(heard).toEqual([[digest(1)], 'all']);
    expect(feed.lagMs()).toBe(0);

    const store = createMemoryStore();
    const swept: (readonly string[] | 'all')[] = [];
    store.revocations.subscribe({ revoked: (d) => swept.push(d) });
    const at = new Date('2026-01-01T00:00:00Z');
    await store.users.insert({ name: 'Ada', email: 'ada@example.com', passwordHash: '$pbkdf2-sha256$i=1$a$b', createdAt: at });
    await store.sessions.insert({ tokenDigest: digest(7), userId: 1, credentialGeneration: 0, createdAt: at, expiresAt: at });
    await store.sessions.insert({ tokenDigest: digest(8), userId: 1, credentialGeneration: 0, createdAt: at, expiresAt: new Date('2030-01-01T00:00:00Z') });
    await store.deleteExpired(at);
    await store.sessions.delete(digest(8));
    expect(swept).toEqual([[digest(7)], [digest(8)]]);
  });
});
