import { LRUCache } from 'lru-cache';
import type { RateLimitHit, RateLimiter, RateLimitRule } from '@sl-accounts/core';

/** Default bound on the windows a memory limiter keeps (see MemoryRateLimiter). */
export const DEFAULT_RATE_LIMIT_KEYS = 100_000;

interface Window {
  count: number;
  readonly resetAt: number;
}

/**
 * Fixed windows in memory, at most `maxKeys` of them: past the bound the window used least recently
 * goes (lru-cache), so a client that changes its address on every request (a spoofed forwarded
 * header, a large IPv6 allocation) cannot grow the map without bound between sweeps. The price: an
 * evicted window starts again at zero; to reset one key by eviction a flood must bring `maxKeys`
 * fresh keys before that key is used again. 100,000 windows of IPv6 keys measured 28 MB of heap.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #windows: LRUCache<string, Window>;
  readonly maxKeys: number;

  constructor(maxKeys: number = DEFAULT_RATE_LIMIT_KEYS) {
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
    this.maxKeys = maxKeys;
    // No ttl: windows end by the injected clock, which lru-cache's own timers do not follow. Bounded
    // by size, one per window, rather than by `max`: given `max`, lru-cache allocates and fills
    // arrays for every slot up front (15-30 ms for 100,000, measured), which every store paid when
    // created, each test's too; by size its arrays grow as windows come, to the same bound.
    this.#windows = new LRUCache({ maxSize: maxKeys, sizeCalculation: () => 1 });
  }

  async consume(key: string, rule: RateLimitRule, now: Date): Promise<RateLimitHit> {
    const t = now.getTime();
    let window = this.#windows.get(key);
    if (!window || window.resetAt <= t) {
      window = { count: 0, resetAt: t + rule.windowMs };
      this.#windows.set(key, window);
    }
    window.count++;
    return { allowed: window.count <= rule.limit, count: window.count, resetAt: new Date(window.resetAt) };
  }

  async refund(key: string, now: Date): Promise<void> {
    const window = this.#windows.peek(key);
    if (window && window.resetAt > now.getTime() && window.count > 0) window.count--;
  }

  async deleteExpired(now: Date): Promise<number> {
    const ended: string[] = [];
    for (const [key, window] of this.#windows.entries()) if (window.resetAt <= now.getTime()) ended.push(key);
    for (const key of ended) this.#windows.delete(key);
    return ended.length;
  }

  /** How many windows are kept, ended ones included (for tests of the sweep and the bound). */
  get size(): number {
    return this.#windows.size;
  }
}
