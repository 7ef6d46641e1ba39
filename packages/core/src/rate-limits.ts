import { RateLimited, type RateLimitStatus } from './errors.ts';
import type { RateLimiter, RateLimitRule } from './ports.ts';

export type LimitedOperation = 'signup' | 'login' | 'contact';

/** The spec's limits, per client IP. */
export const RATE_LIMITS: Readonly<Record<LimitedOperation, RateLimitRule>> = {
  login: { limit: 20, windowMs: 15 * 60_000 },
  signup: { limit: 10, windowMs: 60 * 60_000 },
  contact: { limit: 5, windowMs: 60 * 60_000 },
};

/**
 * Counts one request of `operation` from `clientIp`, reports the quota to `report`, and throws
 * `RateLimited` when it is over the limit.
 * Every request counts, valid or not: this runs before the body is even read.
 */
export async function enforceRateLimit(
  limiter: RateLimiter,
  rules: Readonly<Record<LimitedOperation, RateLimitRule>>,
  operation: LimitedOperation,
  clientIp: string,
  now: Date,
  report?: (status: RateLimitStatus) => void,
): Promise<void> {
  const rule = rules[operation];
  const hit = await limiter.consume(`${operation}:${clientIp}`, rule, now);
  const status: RateLimitStatus = {
    policy: operation,
    limit: rule.limit,
    windowSeconds: Math.ceil(rule.windowMs / 1000),
    remaining: Math.max(0, rule.limit - hit.count),
    resetSeconds: Math.max(1, Math.ceil((hit.resetAt.getTime() - now.getTime()) / 1000)),
  };
  report?.(status);
  if (!hit.allowed) throw new RateLimited(status);
}
