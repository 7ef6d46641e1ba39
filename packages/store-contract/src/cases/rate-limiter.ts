import { expect, it } from 'vitest';
import type { CurrentStore } from '../current-store.ts';
import { at, DAY, HOUR, MINUTE, T0 } from '../fixtures.ts';

export function rateLimiterCases(current: CurrentStore): void {
  const rule = { limit: 3, windowMs: HOUR };

  it('the first request opens a window ending windowMs later', async () => {
    expect(await current.store.rateLimiter.consume('login:203.0.113.1', rule, T0)).toEqual({ allowed: true, count: 1, resetAt: at(HOUR) });
  });

  it('counts within the window and keeps the reset time of its first request', async () => {
    const { rateLimiter } = current.store;
    const key = 'contact:203.0.113.1';
    expect(await rateLimiter.consume(key, rule, T0)).toEqual({ allowed: true, count: 1, resetAt: at(HOUR) });
    expect(await rateLimiter.consume(key, rule, at(MINUTE))).toEqual({ allowed: true, count: 2, resetAt: at(HOUR) });
    expect(await rateLimiter.consume(key, rule, at(30 * MINUTE))).toEqual({ allowed: true, count: 3, resetAt: at(HOUR) });
    expect(await rateLimiter.consume(key, rule, at(HOUR - 1))).toEqual({ allowed: false, count: 4, resetAt: at(HOUR) });
    expect(await rateLimiter.consume(key, rule, at(HOUR - 1))).toEqual({ allowed: false, count: 5, resetAt: at(HOUR) });
  });

  it('with limit 1, refuses every request after the first until the window ends', async () => {
    const { rateLimiter } = current.store;
    const once = { limit: 1, windowMs: MINUTE };
    expect((await rateLimiter.consume('signup:203.0.113.9', once, T0)).allowed).toBe(true);
    for (const t of [0, 1, MINUTE / 2, MINUTE - 1]) expect((await rateLimiter.consume('signup:203.0.113.9', once, at(t))).allowed).toBe(false);
    expect((await rateLimiter.consume('signup:203.0.113.9', once, at(MINUTE))).allowed).toBe(true);
  });

  it('starts a new window at resetAt: the count resets and the window starts at that request', async () => {
    const { rateLimiter } = current.store;
    const key = 'signup:203.0.113.1';
    for (let i = 0; i < 5; i++) await rateLimiter.consume(key, rule, at(i * MINUTE));
    expect(await rateLimiter.consume(key, rule, at(HOUR))).toEqual({ allowed: true, count: 1, resetAt: at(2 * HOUR) });
    expect(await rateLimiter.consume(key, rule, at(HOUR + MINUTE))).toEqual({ allowed: true, count: 2, resetAt: at(2 * HOUR) });
    // Long after the window ended, the next request opens a window from its own time.
    expect(await rateLimiter.consume(key, rule, at(5 * DAY))).toEqual({ allowed: true, count: 1, resetAt: at(5 * DAY + HOUR) });
  });

  it('a window that refuses is kept until it ends, however many other keys come', async () => {
    const { store, inspect } = current;
    const lock = { limit: 20, windowMs: 15 * MINUTE };
    const key = 'login-account:ada@example.com';
    for (let i = 0; i < 20; i++) await store.rateLimiter.consume(key, lock, T0);
    // A flood of other keys past what the store keeps of windows that do not hold, while nobody
    // touches the lock (its owner comes back later).
    const flood = (inspect.bounds?.rateLimitKeys ?? 50) + 50;
    for (let i = 0; i < flood; i++) await store.rateLimiter.consume(`contact:198.51.${i >> 8}.${i & 255}`, rule, at(MINUTE));
    expect(await store.rateLimiter.consume(key, lock, at(2 * MINUTE))).toEqual({ allowed: false, count: 21, resetAt: at(15 * MINUTE) });
    expect(await store.rateLimiter.consume(key, lock, at(15 * MINUTE - 1))).toMatchObject({ allowed: false, resetAt: at(15 * MINUTE) });
    expect(await store.rateLimiter.consume(key, lock, at(15 * MINUTE))).toEqual({ allowed: true, count: 1, resetAt: at(30 * MINUTE) });
  });

  it('a window of a rule that bounds guesses is kept while it counts, below its limit too, however many other keys come', async () => {
    const { store, inspect } = current;
    // An account's wrong codes (issue 39: evicted between rounds, each round got a fresh ten).
    const codes = { limit: 10, windowMs: DAY, guesses: true };
    const key = 'second-factor-account:ada';
    for (let i = 0; i < 5; i++) await store.rateLimiter.consume(key, codes, T0);
    const flood = (inspect.bounds?.rateLimitKeys ?? 50) + 50;
    for (let i = 0; i < flood; i++) await store.rateLimiter.consume(`contact:198.51.${i >> 8}.${i & 255}`, rule, at(MINUTE));
    expect(await store.rateLimiter.consume(key, codes, at(2 * MINUTE))).toEqual({ allowed: true, count: 6, resetAt: at(DAY) });
  });

  it('counts every key on its own', async () => {
    const { rateLimiter } = current.store;
    for (let i = 0; i < 4; i++) await rateLimiter.consume('login:198.51.100.1', rule, T0);
    expect(await rateLimiter.consume('login:198.51.100.2', rule, T0)).toEqual({ allowed: true, count: 1, resetAt: at(HOUR) });
    expect(await rateLimiter.consume('signup:198.51.100.1', rule, T0)).toEqual({ allowed: true, count: 1, resetAt: at(HOUR) });
  });

  it('of 100 concurrent requests with limit 5 exactly 5 are allowed, and each gets its own count', async () => {
    const { rateLimiter } = current.store;
    const hits = await Promise.all(
      Array.from({ length: 100 }, () => rateLimiter.consume('contact:192.0.2.1', { limit: 5, windowMs: HOUR }, T0)),
    );
    expect(hits.filter((h) => h.allowed)).toHaveLength(5);
    expect(hits.map((h) => h.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(new Set(hits.map((h) => h.resetAt.getTime()))).toEqual(new Set([at(HOUR).getTime()]));
  });

  it('deleteExpired(now) removes windows that ended at or before now and counts them', async () => {
    const { rateLimiter } = current.store;
    await rateLimiter.consume('a', { limit: 3, windowMs: MINUTE }, T0); // ends at(MINUTE)
    await rateLimiter.consume('b', { limit: 3, windowMs: HOUR }, T0); // ends at(HOUR)
    await rateLimiter.consume('c', { limit: 3, windowMs: HOUR }, at(-2 * HOUR)); // ended at(-HOUR)
    expect(await rateLimiter.deleteExpired(at(MINUTE))).toBe(2);
    expect(await rateLimiter.deleteExpired(at(MINUTE))).toBe(0);
    // 'b' kept its count; 'a' starts over.
    expect((await rateLimiter.consume('b', rule, at(2 * MINUTE))).count).toBe(2);
    expect((await rateLimiter.consume('a', rule, at(2 * MINUTE))).count).toBe(1);
  });

  it('deleteExpired goes by the passed now, not the wall clock', async () => {
    const { rateLimiter } = current.store;
    await rateLimiter.consume('old', rule, new Date('2000-01-01T00:00:00Z'));
    expect(await rateLimiter.deleteExpired(new Date('2000-01-01T00:30:00Z'))).toBe(0);
    expect(await rateLimiter.deleteExpired(new Date('2000-01-01T01:00:00Z'))).toBe(1);
  });

  it('refund takes one request back from the open window, which keeps its reset time', async () => {
    const { rateLimiter } = current.store;
    const key = 'login-account:abc';
    for (let i = 0; i < 4; i++) await rateLimiter.consume(key, rule, at(i));
    await expect(rateLimiter.refund(key, at(MINUTE))).resolves.toBeUndefined();
    await rateLimiter.refund(key, at(MINUTE));
    expect(await rateLimiter.consume(key, rule, at(2 * MINUTE))).toEqual({ allowed: true, count: 3, resetAt: at(HOUR) });
    // Only that key's window.
    expect(await rateLimiter.consume('login-account:other', rule, T0)).toEqual({ allowed: true, count: 1, resetAt: at(HOUR) });
  });

  it('refund never goes below zero, and of an unknown key does nothing', async () => {
    const { rateLimiter } = current.store;
    await rateLimiter.consume('k', rule, T0);
    for (let i = 0; i < 3; i++) await rateLimiter.refund('k', at(1));
    expect(await rateLimiter.consume('k', rule, at(2))).toEqual({ allowed: true, count: 1, resetAt: at(HOUR) });
    expect(await rateLimiter.consume('k', rule, at(3))).toEqual({ allowed: true, count: 2, resetAt: at(HOUR) });
    await expect(rateLimiter.refund('never-seen', T0)).resolves.toBeUndefined();
    expect(await rateLimiter.consume('never-seen', rule, at(5))).toEqual({ allowed: true, count: 1, resetAt: at(HOUR + 5) });
  });

  it('refund does nothing once the window has ended (by the passed now)', async () => {
    const { rateLimiter } = current.store;
    for (let i = 0; i < 2; i++) await rateLimiter.consume('k', rule, T0);
    await rateLimiter.refund('k', at(HOUR));
    await rateLimiter.refund('k', at(2 * HOUR));
    expect((await rateLimiter.consume('k', rule, at(HOUR - 1))).count).toBe(3);
  });

  it('clear forgets the key’s window: the next request opens a new one; other keys keep theirs', async () => {
    const { rateLimiter } = current.store;
    for (let i = 0; i < 5; i++) await rateLimiter.consume('login-account:ada', rule, T0);
    await rateLimiter.consume('login-account:grace', rule, T0);
    await expect(rateLimiter.clear('login-account:ada')).resolves.toBeUndefined();
    expect(await rateLimiter.consume('login-account:ada', rule, at(MINUTE))).toEqual({ allowed: true, count: 1, resetAt: at(MINUTE + HOUR) });
    expect(await rateLimiter.consume('login-account:grace', rule, at(MINUTE))).toEqual({ allowed: true, count: 2, resetAt: at(HOUR) });
    await expect(rateLimiter.clear('never-seen')).resolves.toBeUndefined();
    expect(await rateLimiter.consume('never-seen', rule, at(2))).toEqual({ allowed: true, count: 1, resetAt: at(HOUR + 2) });
  });

  it('consumes racing a clear each count once, in the forgotten window or in the new one', async () => {
    const { rateLimiter } = current.store;
    const wide = { limit: 100, windowMs: HOUR };
    const before = Array.from({ length: 15 }, () => rateLimiter.consume('busy', wide, T0));
    const cleared = rateLimiter.clear('busy');
    const after = Array.from({ length: 15 }, () => rateLimiter.consume('busy', wide, T0));
    const counts = (await Promise.all([...before, ...after])).map((h) => h.count);
    await cleared;
    // Two runs 1..a (before the clear) and 1..b (after it), a + b = 30: nothing lost, nothing counted twice.
    const next = (await rateLimiter.consume('busy', wide, T0)).count;
    const b = next - 1;
    const a = 30 - b;
    const runs = [...Array.from({ length: a }, (_, i) => i + 1), ...Array.from({ length: b }, (_, i) => i + 1)].sort((x, y) => x - y);
    expect(counts.sort((x, y) => x - y)).toEqual(runs);
  });

  it('concurrent refunds and consumes on one key all count: each is one atomic step', async () => {
    const { rateLimiter } = current.store;
    const wide = { limit: 100, windowMs: HOUR };
    for (let i = 0; i < 20; i++) await rateLimiter.consume('busy', wide, T0);
    await Promise.all([
      ...Array.from({ length: 15 }, () => rateLimiter.refund('busy', at(1))),
      ...Array.from({ length: 10 }, () => rateLimiter.consume('busy', wide, at(1))),
    ]);
    // 20 - 15 + 10 = 15, whatever the interleaving (the count never reached zero).
    expect((await rateLimiter.consume('busy', wide, at(2))).count).toBe(16);
  });
}
