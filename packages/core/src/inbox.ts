/**
 * The inbox as a target: a bound on the mail that anyone can make the service send to one inbox
 * (see docs/decisions/0033-inbox-bound.md). A mail to an address nobody has proven to be its
 * account's is counted against that inbox, in the shared rate limiter (so every process on one
 * database counts together), before it is queued; past the bound it is not queued. Mail about an
 * account whose owner proved the address (a verified account's notices) is the owner's, and is
 * never counted here; reset links have their own bound per inbox (RESET_ADDRESS_LIMIT), over the
 * same slots.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { RateLimited, type RateLimitStatus } from './errors.ts';
import type { Clock, RateLimiter, RateLimitRule } from './ports.ts';
import type { Tally } from './rate-limits.ts';

/**
 * Mails to one inbox in any hour that strangers can cause besides reset links: a new account's
 * verification link, a resend of it, a change-of-address link, and every notice about an account
 * whose address is not verified. With the 4 reset links an hour of RESET_ADDRESS_LIMIT (2 in any 30
 * minutes), at most 8 mails reach an inbox in any hour, whoever asks, from however many client
 * addresses (a span, not a fixed window: see `slotBudget`).
 */
export const INBOX_LIMIT: RateLimitRule = { limit: 4, windowMs: 60 * 60_000 };

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

/**
 * The reset links' share of slots per spelling: all of them for an address without a subaddress (the
 * inbox's own spelling, `ada@`), all but one for `ada+anything@`. Requests for other spellings (an
 * unregistered one mails nothing) could otherwise take every slot, and the owner of `ada@` asking
 * then got a refusal and no link (an attacker's review, 2026-12-08: two requests every 30 minutes kept
 * an address's owner, and the operator's reset for it, from ever getting one). So a refusal of the
 * plain spelling means it was itself asked for in the span, and its newest link is in the inbox and
 * works. A string's property, registered or not: a refusal still says nothing about registration,
 * and the inbox's bound stays what it was. Gmail's dotted spellings all count as plain.
 */
export function reservedForPlainSpelling(limit: number): (email: string) => number {
  return (email) => (email.slice(0, Math.max(0, email.lastIndexOf('@'))).indexOf('+') > 0 ? limit - 1 : limit);
}

/** One mail counted against an inbox, which can be taken back when the mail is not queued after all. */
export interface InboxTicket {
  /** Takes the count back (the mail was not queued: a signup that met a taken address). */
  refund(): Promise<void>;
}

/** A bound on the mails of one kind to each inbox, over the limiter (see `slotBudget`). */
export interface InboxBudget {
  /** Counts one mail to `email`'s inbox; a ticket when it may go, `null` when the inbox has had its share. */
  take(email: string): Promise<InboxTicket | null>;
  /**
   * As `take`, for a request whose whole point is the mail (a resend, a change-of-address link, a
   * reset link): past the bound it throws RateLimited, with the quota noted in `tally`. A request
   * that passes notes nothing: its answer does not tell how much mail the inbox had.
   */
  require(email: string, tally: Tally): Promise<InboxTicket>;
}

/** Inboxes whose slots a process remembers full (see `slotBudget`): a bounded hint, not a count. */
const FULL_INBOXES_REMEMBERED = 10_000;

/**
 * At most `rule.limit` mails to one inbox in any `rule.windowMs`, whenever that span starts, over the
 * limiter's fixed windows. A fixed window of `limit` would let twice that through across its edge
 * (`limit` at its last minute, `limit` more at the first of the next); here each inbox has `limit`
 * slots, each a window of its own that holds one mail: a mail takes the first free slot and holds it
 * for `windowMs`, so two mails in one slot are a whole window apart, and no span of `windowMs` holds
 * more than one mail per slot. A mail costs one limiter call while the inbox is quiet, `2 * limit`
 * when every slot is taken (a full slot's count is given back, so a slot freed by a refund is free
 * whatever else probed it meanwhile). Keyed by a digest of `inboxOf(email)` under `policy`.
 *
 * A process that found every slot of an inbox taken remembers until when (the first slot's end), and
 * refuses until then without asking the limiter: the probes of a full inbox made each password change
 * of an unverified account 8 statements dearer, 0.70 of the request rate before (issue 33's A/B,
 * 2026-11-28). Only a refusal is remembered, never a permission, so the bound holds across processes
 * whatever each remembers; a slot given back (a signup that met a taken address) is free at once in
 * the process that gave it back, and missed until then by the others, which only sends less.
 *
 * `slotsFor(email)` says how many of the slots a spelling may take (all by default): the reset links'
 * budget keeps the last slot for the inbox's own spelling (`reservedForPlainSpelling`).
 */
export function slotBudget(limiter: RateLimiter, clock: Clock, policy: string, rule: RateLimitRule, slotsFor: (email: string) => number = () => rule.limit): InboxBudget {
  const slot = { limit: 1, windowMs: rule.windowMs };
  // Bounded by size, one per inbox, rather than by `max`: given `max`, lru-cache allocates and fills
  // arrays for every slot up front, 10,000 of them for each of the budgets every service makes at
  // its start (1.2 s of test:unit's 34 s of CPU went there, profiled on 2026-12-06). The same LRU either way.
  const fullUntil = new LRUCache<string, number>({ maxSize: FULL_INBOXES_REMEMBERED, sizeCalculation: () => 1 });
  /** Forgets every remembered refusal of the inbox, whatever the spelling's share of slots. */
  const forget = (inbox: string) => {
    for (let slots = 1; slots <= rule.limit; slots++) fullUntil.delete(`${inbox}/${slots}`);
  };
  async function take(email: string): Promise<InboxTicket | { readonly freeAt: Date }> {
    const inbox = `${policy}:${createHash('sha256').update(inboxOf(email)).digest('base64url')}`;
    const slots = Math.max(1, Math.min(rule.limit, slotsFor(email)));
    const full = `${inbox}/${slots}`;
    const remembered = fullUntil.get(full);
    if (remembered !== undefined && remembered > clock.now().getTime()) return { freeAt: new Date(remembered) };
    let freeAt: Date | undefined;
    for (let n = 0; n < slots; n++) {
      const key = `${inbox}:${n}`;
      const now = clock.now();
      const hit = await limiter.consume(key, slot, now);
      if (hit.allowed) {
        return {
          refund: () => {
            forget(inbox);
            return limiter.refund(key, clock.now());
          },
        };
      }
      await limiter.refund(key, now);
      if (!freeAt || hit.resetAt < freeAt) freeAt = hit.resetAt;
    }
    const until = freeAt ?? clock.now();
    fullUntil.set(full, until.getTime());
    return { freeAt: until };
  }
  return {
    async take(email) {
      const taken = await take(email);
      return 'refund' in taken ? taken : null;
    },
    async require(email, tally) {
      const taken = await take(email);
      if ('refund' in taken) return taken;
      const status: RateLimitStatus = {
        policy,
        limit: rule.limit,
        windowSeconds: Math.ceil(rule.windowMs / 1000),
        remaining: 0,
        resetSeconds: Math.max(1, Math.ceil((taken.freeAt.getTime() - clock.now().getTime()) / 1000)),
      };
      tally.set(policy, status);
      throw new RateLimited(status);
    },
  };
}

/** The inbox's share of the mail strangers can cause besides reset links (INBOX_LIMIT), over `limiter`. */
export function inboxBudget(limiter: RateLimiter, clock: Clock, rule: RateLimitRule): InboxBudget {
  return slotBudget(limiter, clock, INBOX_POLICY, rule);
}
