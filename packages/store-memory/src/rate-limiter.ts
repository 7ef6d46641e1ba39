import { LRUCache } from 'lru-cache';
import type { RateLimitHit, RateLimiter, RateLimitRule } from '@sl-accounts/service/core';

/** Default bound on the windows a memory limiter keeps (see MemoryRateLimiter). */
export const DEFAULT_RATE_LIMIT_KEYS = 100_000;

interface Window {
  count: number;
  readonly resetAt: number;
  /** The rule's limit when the window opened: from `count >= limit` on, the window refuses. */
  readonly limit: number;
}

/**
 * Fixed windows in memory, in three parts:
 *
 * - Windows of a rule that bounds guesses (`rule.guesses`: failed logins, wrong codes per account)
 *   live in a map of their own, at most `maxKeys` of them, and are never evicted while they count:
 *   an eviction would start the account's count again at zero, so strangers' traffic would hand out
 *   fresh guesses (issue 39: 28-32 wrong codes where the bound is 10). When that map is full of
 *   windows still open, a new one is refused (the request answers 429 until the first of them ends) rather
 *   than evicting another: the limit fails closed. Filling it takes `maxKeys` distinct accounts'
 *   guesses, each through the per-IP limits.
 * - Windows that hold (their count has reached their limit, so they refuse until they end: an
 *   account's lock after 20 failed logins, a client that spent its contact messages) are kept until
 *   they end, whatever else comes: no flood of other keys lifts a limit early.
 * - The others are an LRU (lru-cache): past the bound the one used least recently goes, so a client
 *   that changes its address on every request (a spoofed forwarded header, a large IPv6 allocation)
 *   cannot grow the map without bound between sweeps. An evicted window starts again at zero, which
 *   gives its key at most `limit - 1` more requests, never a lifted limit.
 *
 * Held windows do not count toward the LRU's `maxKeys`: the store keeps at most `maxKeys` open
 * windows plus the held ones, besides the guesses' `maxKeys`, and `held` is bounded by the traffic,
 * not by a count: each held window took `limit` accepted requests inside its window, and ends with it
 * (the sweep, or its next use, removes it). They once did count, the LRU making room for them down to
 * one slot; past `maxKeys` held windows every open window was then evicted by the next new key, so
 * each request found its windows fresh and no open limit held at all (60,000 passkey sign-in options
 * answered 200 where the total allows 3,000 in 5 minutes, after 60,000 resets to unknown addresses
 * with MEMORY_RATE_LIMIT_KEYS=2000; measured 2026-12-07). The price is at most `maxKeys` more windows. 100,000 windows of IPv6 keys
 * measured 28 MB of heap; 100,000 guess windows (a policy and a SHA-256 digest each) 19.7 MB (2026-12-06).
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #open: LRUCache<string, Window>;
  /** Windows that hold, in the order they came to hold. */
  readonly #held = new Map<string, Window>();
  /** Windows of rules that bound guesses, in the order they opened; never evicted while open. */
  readonly #guesses = new Map<string, Window>();
  /** No window in `#guesses` ends before this (ms): a full map is not swept again until then. */
  #guessesSweptUntil = 0;
  readonly maxKeys: number;
  /** Called first by every method (the store's check that no unit of work calls it). */
  readonly #guard: (what: string) => void;

  constructor(maxKeys: number = DEFAULT_RATE_LIMIT_KEYS, guard: (what: string) => void = () => {}) {
    this.#guard = guard;
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
    this.maxKeys = maxKeys;
    // No ttl: windows end by the injected clock, which lru-cache's own timers do not follow. Bounded
    // by size, one per window, rather than by `max`: given `max`, lru-cache allocates and fills
    // arrays for every slot up front (15-30 ms for 100,000, measured), which every store paid when
    // created, each test's too; by size its arrays grow as windows come, to the same bound.
    this.#open = new LRUCache({ maxSize: maxKeys, sizeCalculation: () => 1 });
  }

  async consume(key: string, rule: RateLimitRule, now: Date): Promise<RateLimitHit> {
    this.#guard('rateLimiter.consume');
    const t = now.getTime();
    if (rule.guesses) return this.#consumeGuess(key, rule, t);
    let window = this.#held.get(key) ?? this.#open.get(key);
    if (!window || window.resetAt <= t) {
      this.#held.delete(key);
      window = { count: 0, resetAt: t + rule.windowMs, limit: rule.limit };
      this.#open.set(key, window);
    }
    window.count++;
    if (window.count >= window.limit && !this.#held.has(key)) this.#hold(key, window, t);
    return { allowed: window.count <= rule.limit, count: window.count, resetAt: new Date(window.resetAt) };
  }

  async refund(key: string, now: Date): Promise<void> {
    this.#guard('rateLimiter.refund');
    const guess = this.#guesses.get(key);
    if (guess) {
      if (guess.resetAt > now.getTime() && guess.count > 0) guess.count--;
      return;
    }
    const held = this.#held.get(key);
    const window = held ?? this.#open.peek(key);
    if (!window || window.resetAt <= now.getTime() || window.count === 0) return;
    window.count--;
    if (held && window.count < window.limit) {
      // It no longer refuses: back among the windows that may be evicted.
      this.#held.delete(key);
      this.#open.set(key, window);
    }
  }

  async clear(key: string): Promise<void> {
    this.#guard('rateLimiter.clear');
    // A window that refuses is cleared too: clearing is a deliberate end (a completed reset), not an eviction.
    this.#held.delete(key);
    this.#open.delete(key);
    this.#guesses.delete(key);
  }

  async deleteExpired(now: Date): Promise<number> {
    this.#guard('rateLimiter.deleteExpired');
    const t = now.getTime();
    const ended: string[] = [];
    for (const [key, window] of this.#open.entries()) if (window.resetAt <= t) ended.push(key);
    for (const key of ended) this.#open.delete(key);
    let heldEnded = 0;
    for (const [key, window] of this.#held) {
      if (window.resetAt <= t) {
        this.#held.delete(key);
        heldEnded++;
      }
    }
    let guessesEnded = 0;
    for (const [key, window] of this.#guesses) {
      if (window.resetAt <= t) {
        this.#guesses.delete(key);
        guessesEnded++;
      }
    }
    return ended.length + heldEnded + guessesEnded;
  }

  /** How many windows are kept, ended ones included (for tests of the sweep and the bound). */
  get size(): number {
    return this.#open.size + this.#held.size + this.#guesses.size;
  }

  /** How many of them bound guesses (for tests). */
  get guessesSize(): number {
    return this.#guesses.size;
  }

  /** How many of them hold (for tests). */
  get heldSize(): number {
    return this.#held.size;
  }

  #consumeGuess(key: string, rule: RateLimitRule, t: number): RateLimitHit {
    let window = this.#guesses.get(key);
    if (window && window.resetAt <= t) {
      this.#guesses.delete(key);
      window = undefined;
    }
    if (!window) {
      if (this.#guesses.size >= this.maxKeys && !this.#sweepGuesses(t)) {
        // Full of open windows: refused until the oldest-ending one ends, whatever the key.
        return { allowed: false, count: rule.limit + 1, resetAt: new Date(this.#guessesSweptUntil) };
      }
      window = { count: 0, resetAt: t + rule.windowMs, limit: rule.limit };
      this.#guesses.set(key, window);
      this.#guessesSweptUntil = Math.min(this.#guessesSweptUntil, window.resetAt);
    }
    window.count++;
    return { allowed: window.count <= rule.limit, count: window.count, resetAt: new Date(window.resetAt) };
  }

  /**
   * Drops the guess windows that ended; whether that made room. A full scan, but at most once until
   * the earliest end it found: a full map of open windows costs a lookup per refused request.
   */
  #sweepGuesses(t: number): boolean {
    if (t < this.#guessesSweptUntil) return false;
    let earliest = Number.POSITIVE_INFINITY;
    for (const [key, window] of this.#guesses) {
      if (window.resetAt <= t) this.#guesses.delete(key);
      else earliest = Math.min(earliest, window.resetAt);
    }
    this.#guessesSweptUntil = earliest;
    return this.#guesses.size < this.maxKeys;
  }

  #hold(key: string, window: Window, t: number): void {
    this.#open.delete(key);
    this.#held.set(key, window);
    // Held windows that ended since they came to hold go now, a few at a time, so a flood of them
    // does not wait for the sweep; the oldest are at the front.
    let checked = 0;
    for (const [k, w] of this.#held) {
      if (++checked > 4) break;
      if (w.resetAt <= t) this.#held.delete(k);
    }
  }
}
