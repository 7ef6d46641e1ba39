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
      expect(rateLimiter.size).toBeLessThanOrEqual(100);
    }
    expect(rateLimiter.size).toBe(100);
    // One left alone for 100 fresh keys is gone, and starts again.
    expect((await rateLimiter.consume('login:10.0.0.0', RULE, now)).count).toBe(1);
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
