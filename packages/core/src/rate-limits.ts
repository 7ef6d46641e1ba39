import { createHash } from 'node:crypto';
import { RateLimited, type RateLimitStatus } from './errors.ts';
import type { RateLimiter, RateLimitRule } from './ports.ts';

/** The operations limited per client address. */
export type LimitedOperation = 'signup' | 'login' | 'contact' | 'passwordReset' | 'passwordResetConfirm' | 'emailVerification' | 'emailVerificationConfirm' | 'passkeySignIn' | 'secondFactor' | 'providerSignIn';

/**
 * The limits per client IP: the spec's three, then the password reset's own. A reset request sends
 * a mail, so its limit is the contact form's order of magnitude; a confirmation costs one password
 * hash, as a login does, and a token (256 bits) cannot be guessed at any rate.
 */
export const RATE_LIMITS: Readonly<Record<LimitedOperation, RateLimitRule>> = {
  login: { limit: 20, windowMs: 15 * 60_000 },
  signup: { limit: 10, windowMs: 60 * 60_000 },
  contact: { limit: 5, windowMs: 60 * 60_000 },
  passwordReset: { limit: 10, windowMs: 60 * 60_000 },
  passwordResetConfirm: { limit: 20, windowMs: 15 * 60_000 },
  // A new verification link is a mail, as a reset request is; confirming one costs no hash, but
  // nothing needs more than a few tries.
  emailVerification: { limit: 10, windowMs: 60 * 60_000 },
  emailVerificationConfirm: { limit: 20, windowMs: 15 * 60_000 },
  // A passkey sign-in is two requests (its options, which store a challenge, and its answer), each
  // counted: twice a login's, for as many sign-ins. A signature cannot be guessed at any rate; the
  // bound is on the challenges a client makes the store keep.
  passkeySignIn: { limit: 40, windowMs: 15 * 60_000 },
  // A login's second step (POST /api/login/second-factor): as a login; the codes themselves are
  // bounded per account or device by SECOND_FACTOR_LIMIT.
  secondFactor: { limit: 20, windowMs: 15 * 60_000 },
  // A sign-in or link through an identity provider (POST /api/sign-in/<id>, POST /api/me/identities/<id>):
  // each stores a state for 10 minutes; a person needs one or two, a login's bound is plenty.
  providerSignIn: { limit: 20, windowMs: 15 * 60_000 },
};

/**
 * Reset links per inbox (the normalised address as `inboxOf` reads it, registered or not), from
 * whatever IP: at most 2 in any 30 minutes (slots, see `slotBudget`; the last kept for the inbox's
 * plain spelling, `reservedForPlainSpelling`), so at most 4 in any hour,
 * however many clients ask and however they spell the address (`ada+1@`, `ada+2@` are one inbox).
 * The per-IP limit alone would let a botnet bomb an inbox; this one caps it. The span is the
 * token's lifetime (RESET_TOKEN_TTL_MS), so a request refused here always finds a working link in
 * the inbox: the newest of the ones that filled the slots, asked for less than 30 minutes ago
 * (whoever asked: strangers' requests cannot leave the owner without one). Not in INBOX_LIMIT:
 * strangers' other mail never stands in the way of a reset.
 */
export const RESET_ADDRESS_LIMIT: RateLimitRule = { limit: 2, windowMs: 30 * 60_000 };

/** The policy name of RESET_ADDRESS_LIMIT in a request's `Quota`. */
export const RESET_ADDRESS_POLICY = 'password-reset-address';

/**
 * The operator's reset links (the admin API's and the CLI's), per inbox, apart from strangers' slots:
 * RESET_ADDRESS_LIMIT's rule over slots only the operator's requests take, so whatever strangers ask
 * for (other spellings of the inbox, Gmail's dotted ones, a subaddressed account's), support can still
 * mail its owner a link, and a refusal means the operator mailed one in the last 30 minutes (an
 * attacker's review, 2026-12-08: strangers' requests held the operator's reset at 429).
 */
export const RESET_OPERATOR_POLICY = 'password-reset-operator';

/**
 * Links mailed per account (a new verification link, a change of address), from whatever session
 * or IP: at most 3 an hour, so one account cannot spend an inbox's share (INBOX_LIMIT) alone: an
 * account that asked 3 links to an address leaves room for its owner's.
 */
export const EMAIL_LINK_ACCOUNT_LIMIT: RateLimitRule = { limit: 3, windowMs: 60 * 60_000 };

/** The policy name of EMAIL_LINK_ACCOUNT_LIMIT in a request's `Quota`. */
export const EMAIL_LINK_ACCOUNT_POLICY = 'email-link-account';

/**
 * Changes of name per session: at most 20 an hour. Each one is a write that every session cache of
 * the user hears about (on Postgres, a notification per change), so a loop of them costs every
 * process; nobody renames themselves more than a few times.
 */
export const PROFILE_SESSION_LIMIT: RateLimitRule = { limit: 20, windowMs: 60 * 60_000 };

/** The policy name of PROFILE_SESSION_LIMIT in a request's `Quota`. */
export const PROFILE_SESSION_POLICY = 'profile-session';

/**
 * New-device notices mailed per account and window: at most 3 an hour. Whoever knows the password
 * could otherwise make the service mail the owner at every login from a cookie-less client, and bury
 * the notice that matters (a change of address asked for) under them. Logins beyond it are not
 * refused, only not mailed about.
 */
export const NEW_DEVICE_NOTICE_LIMIT: RateLimitRule = { limit: 3, windowMs: 60 * 60_000 };

/** The limiter's name for NEW_DEVICE_NOTICE_LIMIT (never in a request's `Quota`: nothing is refused). */
export const NEW_DEVICE_NOTICE_POLICY = 'new-device-notice';

/**
 * Failed logins per account (normalised e-mail, whether or not it is registered), beside the per-IP
 * limits: a guess spread over many addresses still meets this one.
 */
export const ACCOUNT_LOGIN_LIMIT: RateLimitRule = { limit: 20, windowMs: 15 * 60_000, guesses: true };

/** The policy name of ACCOUNT_LOGIN_LIMIT in a request's `Quota`. */
export const ACCOUNT_LOGIN_POLICY = 'login-account';

/**
 * The policy name of a signed-in session's own limit on the password checks it makes (a password
 * change, a deletion), counted per session under the account's rule: the login failures of others
 * cannot lock the owner out of them, and a stolen session still cannot guess faster than a login.
 */
export const SESSION_PASSWORD_POLICY = 'session-password';

/**
 * Wrong second-factor answers (TOTP codes, recovery codes, passkey assertions) per account, from
 * whatever IP, session or device proof: at most 10 a day in total; a right answer takes its count
 * back. Six digits with one step either side accepted are 3 in 10^6 per guess, so a year of
 * guessing at this bound wins with odds of about 1 in 90 (10 × 365 × 3 / 10^6), and only for
 * someone who has the password or a session already. One window per account, not one per device
 * proof or session: each proof or session its own budget multiplied the bound (issue 39: 4 proofs
 * gave 50 guesses). Whoever has the password can spend it; the owner then comes in with a recovery
 * code or a passkey (SECOND_FACTOR_RECOVERY_LIMIT).
 */
export const SECOND_FACTOR_LIMIT: RateLimitRule = { limit: 10, windowMs: 24 * 60 * 60_000, guesses: true };

/** The policy name of SECOND_FACTOR_LIMIT (a login's second step, and every code a signed-in session sends). */
export const SECOND_FACTOR_ACCOUNT_POLICY = 'second-factor-account';

/**
 * Recovery codes and passkey assertions once the account's SECOND_FACTOR_LIMIT is spent: 10 more
 * a day per account for clients without a device proof of it, and 10 a day per device proof (the
 * owner's browser), so strangers who spent the 10 with wrong TOTP codes, and then these with wrong
 * recovery codes, cannot lock the owner's browser out (ADR 0047, amended 2026-12-08). A completed
 * password reset clears the account's windows. Neither can be guessed at any rate the limits allow
 * (a recovery code is one of ten 50-bit values: 9 × 10^-15 per guess, 3 × 10^8 times less than a
 * TOTP code; an assertion is a signature), so the extra answers change the odds by nothing
 * measurable; the bound only keeps them finite.
 */
export const SECOND_FACTOR_RECOVERY_LIMIT: RateLimitRule = { limit: 10, windowMs: 24 * 60 * 60_000, guesses: true };

/** The policy name of SECOND_FACTOR_RECOVERY_LIMIT. */
export const SECOND_FACTOR_RECOVERY_POLICY = 'second-factor-recovery';

/**
 * WebAuthn options a signed-in session asks for (registration, step-up): at most 20 in 5 minutes (a
 * challenge's life). Each answer stores a challenge; one session made 159,418 in 60 s (issue 39).
 * The store keeps an account's newest PASSKEY_CHALLENGES_PER_ACCOUNT challenges whatever the rate;
 * this bounds the work and the rows written.
 */
export const PASSKEY_OPTIONS_SESSION_LIMIT: RateLimitRule = { limit: 20, windowMs: 5 * 60_000 };

/** The policy name of PASSKEY_OPTIONS_SESSION_LIMIT. */
export const PASSKEY_OPTIONS_SESSION_POLICY = 'passkey-options-session';

/**
 * Sign-in options (discoverable passkeys, no account named) from all clients together: at most 3,000
 * in 5 minutes (a challenge's life), 10 a second, beside the per-address `passkeySignIn`. A sign-in
 * challenge names no account, so the store cannot bound them per account; addresses rotate. A row
 * lives 5 minutes and the sweep (every minute by default) deletes it, so at most three windows'
 * worth, 9,000 rows, are kept at once: 3.5 MB on the memory store (389 bytes a row, measured
 * 2026-12-06). Whoever floods it makes strangers' passkey sign-ins wait (429) for the window's end,
 * never the password login nor a login's passkey step.
 */
export const PASSKEY_SIGN_IN_TOTAL_LIMIT: RateLimitRule = { limit: 3_000, windowMs: 5 * 60_000 };

/** The policy name of PASSKEY_SIGN_IN_TOTAL_LIMIT, and its one limiter key. */
export const PASSKEY_SIGN_IN_TOTAL_POLICY = 'passkey-sign-in-total';

/**
 * Sign-ins through identity providers started by all clients together: at most 3,000 in 10 minutes
 * (a state's life), beside the per-address `providerSignIn`. A state names no account, so a flood
 * from many addresses is bounded here: at most two windows' worth, 6,000 states, live at once, and
 * the sweep deletes them when they expire. Whoever floods it makes strangers' provider sign-ins wait
 * (429) for the window's end, never the password login or a passkey.
 */
export const PROVIDER_SIGN_IN_TOTAL_LIMIT: RateLimitRule = { limit: 3_000, windowMs: 10 * 60_000 };

/** The policy name of PROVIDER_SIGN_IN_TOTAL_LIMIT, and its one limiter key. */
export const PROVIDER_SIGN_IN_TOTAL_POLICY = 'provider-sign-in-total';

/** One counted request: the window's key, its rule, and the quota after counting. */
export interface Counted {
  readonly key: string;
  readonly status: RateLimitStatus;
}

/**
 * The quota of each policy that counted one request, in counting order: the latest status per
 * policy (a refund replaces the status its count left).
 */
export type Tally = Map<string, RateLimitStatus>;

/** What a rate-limited use case answers besides its value: the quota its request left. */
export interface Quota {
  /**
   * The status of each policy that counted the request, in counting order (the per-client limit
   * first); after a refund, the quota the refund left.
   */
  readonly limits: readonly RateLimitStatus[];
}

/** The statuses counted before a use case failed, by the thrown value (see `countedLimits`). */
const countedBeforeFailure = new WeakMap<object, readonly RateLimitStatus[]>();

/**
 * The quota a request left when its use case threw `failure`: the status of each policy that had
 * counted it, in counting order (a `RateLimited` included); empty when none had, or when `failure`
 * did not come from a rate-limited use case. The failing side of `Quota`, without wrapping the error.
 */
export function countedLimits(failure: unknown): readonly RateLimitStatus[] {
  return (typeof failure === 'object' && failure !== null && countedBeforeFailure.get(failure)) || [];
}

/**
 * Runs a use case with a fresh tally and answers its value with the quota counted; a failure is
 * rethrown as it is, with the quota counted before it recorded for `countedLimits`.
 */
export async function withQuota<T extends object>(run: (tally: Tally) => Promise<T>): Promise<T & Quota> {
  const tally: Tally = new Map();
  try {
    const value = await run(tally);
    return { ...value, limits: [...tally.values()] };
  } catch (error) {
    if (tally.size > 0 && typeof error === 'object' && error !== null) countedBeforeFailure.set(error, [...tally.values()]);
    throw error;
  }
}

/** Counts one request under `key`, notes the quota in `tally`, and throws `RateLimited` when it is over the limit. */
export async function countRequest(limiter: RateLimiter, policy: string, key: string, rule: RateLimitRule, now: Date, tally: Tally): Promise<Counted> {
  const hit = await limiter.consume(key, rule, now);
  const status: RateLimitStatus = {
    policy,
    limit: rule.limit,
    windowSeconds: Math.ceil(rule.windowMs / 1000),
    remaining: Math.max(0, rule.limit - hit.count),
    resetSeconds: Math.max(1, Math.ceil((hit.resetAt.getTime() - now.getTime()) / 1000)),
  };
  tally.set(policy, status);
  if (!hit.allowed) throw new RateLimited(status);
  return { key, status };
}

/** Takes a counted request back (see RateLimiter.refund) and notes the quota it leaves in `tally`. */
export async function refundRequest(limiter: RateLimiter, counted: Counted, now: Date, tally: Tally): Promise<void> {
  await limiter.refund(counted.key, now);
  tally.set(counted.status.policy, { ...counted.status, remaining: Math.min(counted.status.limit, counted.status.remaining + 1) });
}

/**
 * The limiter key of an account: a digest of the normalised e-mail, so that keys stay short (an
 * e-mail may be long) and the limiter's table holds no addresses. Also of anything else a policy
 * counts by (a device's nonce, a session's digest), for the same reasons.
 */
export function accountKey(policy: string, email: string): string {
  return `${policy}:${createHash('sha256').update(email).digest('base64url')}`;
}
