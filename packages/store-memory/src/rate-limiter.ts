import type { RateLimitHit, RateLimiter, RateLimitRule } from '@sl/core';
import { deleteWhere } from './delete-where.ts';

export class MemoryRateLimiter implements RateLimiter {
  readonly #windows = new Map<string, { count: number; resetAt: number }>();

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
    const window = this.#windows.get(key);
    if (window && window.resetAt > now.getTime() && window.count > 0) window.count--;
  }

  async deleteExpired(now: Date): Promise<number> {
    return deleteWhere(this.#windows, (w) => w.resetAt <= now.getTime());
  }

  /** How many windows are kept, ended ones included (for tests of the sweep). */
  get size(): number {
    return this.#windows.size;
  }
}
