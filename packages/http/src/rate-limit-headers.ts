import type { RateLimitStatus } from '@sl/core';

/** `RateLimit-Policy` and `RateLimit` in draft-ietf-httpapi-ratelimit-headers-10 syntax. */
export function rateLimitHeaders(s: RateLimitStatus): Record<string, string> {
  return {
    'ratelimit-policy': `"${s.policy}";q=${s.limit};w=${s.windowSeconds}`,
    ratelimit: `"${s.policy}";r=${s.remaining};t=${s.resetSeconds}`,
  };
}
