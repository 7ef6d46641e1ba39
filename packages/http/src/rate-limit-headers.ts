import type { RateLimitStatus } from '@sl-accounts/service/core';

/**
 * `RateLimit-Policy` and `RateLimit` in draft-ietf-httpapi-ratelimit-headers-10 syntax: one list
 * item per policy that counted the request, in the order they counted it.
 */
export function rateLimitHeaders(statuses: readonly RateLimitStatus[]): Record<string, string> {
  if (statuses.length === 0) return {};
  return {
    'ratelimit-policy': statuses.map((s) => `"${s.policy}";q=${s.limit};w=${s.windowSeconds}`).join(', '),
    ratelimit: statuses.map((s) => `"${s.policy}";r=${s.remaining};t=${s.resetSeconds}`).join(', '),
  };
}
