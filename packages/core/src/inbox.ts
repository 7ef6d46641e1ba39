/**
 * The inbox as a target: a bound on the mail that anyone can make the service send to one inbox
 * (see docs/decisions/0033-inbox-bound.md). A mail to an address nobody has proven to be its
 * account's is counted against that inbox, in the shared rate limiter (so every process on one
 * database counts together), before it is queued; past the bound it is not queued. Mail about an
 * account whose owner proved the address (a verified account's notices) is the owner's, and is
 * never counted here; reset links have their own bound per inbox (RESET_ADDRESS_LIMIT).
 */
import { createHash } from 'node:crypto';
import { RateLimited, type RateLimitStatus } from './errors.ts';
import type { Clock, RateLimiter, RateLimitRule } from './ports.ts';
import type { Tally } from './rate-limits.ts';

/**
 * Mails to one inbox an hour that strangers can cause besides reset links: a new account's
 * verification link, a resend of it, a change-of-address link, and every notice about an account
 * whose address is not verified. With the 3 reset links of RESET_ADDRESS_LIMIT, at most 8 mails an
 * hour reach an inbox whoever asks, from however many client addresses.
 */
export const INBOX_LIMIT: RateLimitRule = { limit: 5, windowMs: 60 * 60_000 };

/** The policy name of INBOX_LIMIT in a refused request's quota. */
export const INBOX_POLICY = 'inbox';

/** Domains whose mailboxes ignore dots in the local part: every spelling is one inbox. */
const DOTLESS_DOMAINS: Readonly<Record<string, string>> = { 'gmail.com': 'gmail.com', 'googlemail.com': 'gmail.com' };

/**
 * The inbox a normalised address delivers to, as far as the service can tell: the address without
 * a subaddress (`ada+anything@` is `ada@`, RFC 5233, which Gmail, Outlook, Fastmail, Proton and
 * Google Workspace domains all deliver to one inbox), and for Gmail without dots. Hand-written
 * rather than validator's `normalizeEmail`, which strips a subaddress only on the providers it
 * knows and so leaves every custom domain open; a key that merges a few addresses too many only
 * makes their shared bound tighter. A catch-all domain is beyond what any key can see.
 */
export function inboxOf(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 0) return email;
  let local = email.slice(0, at);
  let domain = email.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  const dotless = DOTLESS_DOMAINS[domain];
  if (dotless) {
    local = local.replaceAll('.', '');
    domain = dotless;
  }
  return `${local}@${domain}`;
}

/** One mail counted against an inbox, which can be taken back when the mail is not queued after all. */
export interface InboxTicket {
  /** Takes the count back (the mail was not queued: a signup that met a taken address). */
  refund(): Promise<void>;
}

/** The bound, over the limiter. */
export interface InboxBudget {
  /** Counts one mail to `email`'s inbox; a ticket when it may go, `null` when the inbox has had its share. */
  take(email: string): Promise<InboxTicket | null>;
  /**
   * As `take`, for a request whose whole point is the mail (a resend, a change-of-address link):
   * past the bound it throws RateLimited, with the quota noted in `tally`. A request that passes
   * notes nothing: its answer does not tell how much mail the inbox had.
   */
  require(email: string, tally: Tally): Promise<InboxTicket>;
}

/** The inbox budget over `limiter`, counting by `rule`. */
export function inboxBudget(limiter: RateLimiter, clock: Clock, rule: RateLimitRule): InboxBudget {
  const keyOf = (email: string) => `${INBOX_POLICY}:${createHash('sha256').update(inboxOf(email)).digest('base64url')}`;
  async function count(email: string) {
    const key = keyOf(email);
    const now = clock.now();
    const hit = await limiter.consume(key, rule, now);
    const ticket: InboxTicket = { refund: () => limiter.refund(key, clock.now()) };
    return { hit, ticket, now };
  }
  return {
    async take(email) {
      const { hit, ticket } = await count(email);
      return hit.allowed ? ticket : null;
    },
    async require(email, tally) {
      const { hit, ticket, now } = await count(email);
      if (hit.allowed) return ticket;
      const status: RateLimitStatus = {
        policy: INBOX_POLICY,
        limit: rule.limit,
        windowSeconds: Math.ceil(rule.windowMs / 1000),
        remaining: 0,
        resetSeconds: Math.max(1, Math.ceil((hit.resetAt.getTime() - now.getTime()) / 1000)),
      };
      tally.set(INBOX_POLICY, status);
      throw new RateLimited(status);
    },
  };
}
