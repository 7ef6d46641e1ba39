/**
 * The memory limiter is bounded by keys: a client with a new address per request cannot grow it
 * without bound before the sweep (issue 16: 453,711 keys in 30 s).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStore, DEFAULT_RATE_LIMIT_KEYS } from '@sl-accounts/store-memory';

const RULE = { limit: 5, windowMs: 60_000 };

describe('the memory store’s rate limiter', () => {
  it('keeps at most the configured number of windows, dropping the least recently used', async () => {
    const { rateLimiter } = createMemoryStore({ rateLimitKeys: 100 });
    const now = new Date();
    for (let i = 0; i < 5; i++) await rateLimiter.consume('login:victim', RULE, now);
    for (let i = 0; i < 1000; i++) {
      await rateLimiter.consume(`login:10.0.${i >> 8}.${i & 255}`, RULE, now);
      // A window in use stays: the victim's count is never reset by the flood.
      if (i % 50 === 0) expect((await rateLimiter.consume('login:victim', RULE, now)).allowed).toBe(false);
      // 100 open windows besides the victim's, which holds (its 5 of 5 spent).
      expect(rateLimiter.size).toBeLessThanOrEqual(101);
    }
    expect(rateLimiter.size).toBe(101);
    // One left alone for 100 fresh keys is gone, and starts again.
    expect((await rateLimiter.consume('login:10.0.0.0', RULE, now)).count).toBe(1);
  });

  it('never evicts a window that refuses: 250 other keys past a bound of 200 leave an account’s lock until it ends', async () => {
    const { rateLimiter } = createMemoryStore({ rateLimitKeys: 200 });
    const lock = { limit: 20, windowMs: 15 * 60_000 };
    const t0 = new Date('2031-03-01T12:00:00Z');
    const at = (ms: number) => new Date(t0.getTime() + ms);
    for (let i = 0; i < 20; i++) await rateLimiter.consume('login-account:ada@example.com', lock, t0);
    // One short of its limit: such a window may go, which costs its key at most limit - 1 requests.
    for (let i = 0; i < 19; i++) await rateLimiter.consume('login-account:grace@example.com', lock, t0);
    for (let i = 0; i < 250; i++) await rateLimiter.consume(`contact:10.0.${i >> 8}.${i & 255}`, RULE, at(1_000));
    // 200 open windows besides the one that holds.
    expect(rateLimiter.size).toBe(201);
    expect(rateLimiter.heldSize).toBe(1);
    expect(await rateLimiter.consume('login-account:ada@example.com', lock, at(2_000))).toMatchObject({ allowed: false, count: 21 });
    expect((await rateLimiter.consume('login-account:grace@example.com', lock, at(2_000))).count).toBe(1);
    // Once it ends it is an ordinary window again: a fresh one opens, and the sweep removes ended ones.
    expect(await rateLimiter.consume('login-account:ada@example.com', lock, at(15 * 60_000))).toMatchObject({ allowed: true, count: 1 });
    expect(rateLimiter.heldSize).toBe(0);
  });

  it('windows that hold are kept besides the bound: open ones still come and go under it', async () => {
    const { rateLimiter } = createMemoryStore({ rateLimitKeys: 10 });
    const once = { limit: 1, windowMs: 60_000 };
    const now = new Date();
    for (let i = 0; i < 25; i++) await rateLimiter.consume(`signup:10.1.0.${i}`, once, now);
    // Every one of them holds (limit 1): none goes; a new key still gets a window of its own.
    expect(rateLimiter.heldSize).toBe(25);
    for (let i = 0; i < 25; i++) expect((await rateLimiter.consume(`signup:10.1.0.${i}`, once, now)).allowed).toBe(false);
    for (let i = 0; i < 5; i++) expect((await rateLimiter.consume(`login:10.2.0.${i}`, RULE, now)).count).toBe(1);
    expect(rateLimiter.size).toBe(30);
    // Up to the bound of open windows, then the least recently used of them goes.
    for (let i = 5; i < 15; i++) await rateLimiter.consume(`login:10.2.0.${i}`, RULE, now);
    expect(rateLimiter.size).toBe(35);
    // A refund below the limit makes a window evictable again.
    const refunded = { limit: 2, windowMs: 60_000 };
    await rateLimiter.consume('login-account:x', refunded, now);
    await rateLimiter.consume('login-account:x', refunded, now);
    expect(rateLimiter.heldSize).toBe(26);
    await rateLimiter.refund('login-account:x', now);
    expect(rateLimiter.heldSize).toBe(25);
    // Back among the open ones, it took the place of the least recently used: 25 held and 10 open.
    expect(await rateLimiter.deleteExpired(new Date(now.getTime() + 60_000))).toBe(35);
    expect(rateLimiter.size).toBe(0);
  });

  it('keeps counting an open window when more windows hold than the bound: a flood of held ones lifts no other limit', async () => {
    // More windows that hold than the bound (each slot of an inbox holds at once: limit 1), as a
    // flood of reset requests to new addresses leaves them; then each request counts a fresh
    // client's window and one window all clients share (as the passkey sign-in total does).
    const { rateLimiter } = createMemoryStore({ rateLimitKeys: 10 });
    const now = new Date();
    for (let i = 0; i < 11; i++) await rateLimiter.consume(`reset-inbox:${i}:0`, { limit: 1, windowMs: 60_000 }, now);
    const total = { limit: 3, windowMs: 60_000 };
    let allowed = 0;
    for (let i = 0; i < 100; i++) {
      await rateLimiter.consume(`passkey-sign-in:10.3.0.${i}`, RULE, now);
      if ((await rateLimiter.consume('passkey-sign-in-total', total, now)).allowed) allowed++;
    }
    expect(allowed).toBe(3);
  });

  it('never evicts a window that bounds guesses: 350 fresh addresses past a bound of 300 leave an account’s wrong codes counted', async () => {
    const { rateLimiter } = createMemoryStore({ rateLimitKeys: 300 });
    const codes = { limit: 10, windowMs: 24 * 60 * 60_000, guesses: true };
    const now = new Date();
    // Rounds of three wrong codes with strangers' contacts between them (issue 39: 28-32 answered).
    let allowed = 0;
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 3; i++) if ((await rateLimiter.consume('second-factor-account:ada', codes, now)).allowed) allowed++;
      for (let i = 0; i < 350; i++) await rateLimiter.consume(`contact:10.${round}.${i >> 8}.${i & 255}`, RULE, now);
    }
    expect(allowed).toBe(10);
    expect(rateLimiter.size).toBeLessThanOrEqual(300 + 1);
  });

  it('refuses a new guess window while its map is full of open ones, until the first ends; the map stays at its bound', async () => {
    const { rateLimiter } = createMemoryStore({ rateLimitKeys: 20 });
    const fails = { limit: 20, windowMs: 15 * 60_000, guesses: true };
    const t0 = new Date('2031-03-01T12:00:00Z');
    const at = (ms: number) => new Date(t0.getTime() + ms);
    for (let i = 0; i < 20; i++) expect((await rateLimiter.consume(`login-account:${i}`, fails, at(i * 1_000))).allowed).toBe(true);
    // Full: a 21st account's window is refused (not another evicted), with the first end as its reset.
    expect(await rateLimiter.consume('login-account:new', fails, at(30_000))).toEqual({ allowed: false, count: 21, resetAt: at(15 * 60_000) });
    expect(rateLimiter.guessesSize).toBe(20);
    // The ones kept go on counting; ordinary windows still come and go.
    expect((await rateLimiter.consume('login-account:0', fails, at(31_000))).count).toBe(2);
    expect((await rateLimiter.consume('login:10.0.0.1', RULE, at(31_000))).allowed).toBe(true);
    // When the first ends, a slot frees.
    expect(await rateLimiter.consume('login-account:new', fails, at(15 * 60_000))).toEqual({ allowed: true, count: 1, resetAt: at(30 * 60_000) });
    expect(rateLimiter.guessesSize).toBe(20);
    // A refund, a clear and the sweep reach them too.
    await rateLimiter.refund('login-account:new', at(15 * 60_000));
    expect((await rateLimiter.consume('login-account:new', fails, at(15 * 60_000))).count).toBe(1);
    await rateLimiter.clear('login-account:new');
    // 19 guess windows and the ordinary one.
    expect(await rateLimiter.deleteExpired(at(30 * 60_000))).toBe(20);
    expect(rateLimiter.size).toBe(0);
  });

  it(`is bounded by default, at ${DEFAULT_RATE_LIMIT_KEYS} windows`, async () => {
    const { rateLimiter } = createMemoryStore();
    expect(rateLimiter.maxKeys).toBe(DEFAULT_RATE_LIMIT_KEYS);
    const now = new Date();
    for (let i = 0; i < DEFAULT_RATE_LIMIT_KEYS + 20_000; i++) await rateLimiter.consume(`login:${i}`, RULE, now);
    expect(rateLimiter.size).toBe(DEFAULT_RATE_LIMIT_KEYS);
  });

  it('refuses a bound that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => createMemoryStore({ rateLimitKeys: bad })).toThrow(RangeError);
  });
});
