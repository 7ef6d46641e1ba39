/**
 * The ports besides the store's repositories (store.ts): mail, the rate limiter, device keys, the
 * revocation feed, hashing, time and tokens. Adapters implement them; absence is `null`.
 */

/**
 * What a mail is for, so a store that must bound its outbox knows what to keep, and what to send
 * first: `contact` (a contact message for the operator, which any visitor can cause), `unverified`
 * (mail to an address nobody has proven to be its account's, which anyone who names the address can
 * cause: a new account's verification link, a resend of it, a change-of-address link, a notice about
 * an account whose address is not verified) or `security` (the mail of existing accounts: a reset
 * link, a notice to a verified address). Under pressure contact mail gives way first, then
 * `unverified` mail; neither ever pushes security mail out, and security mail is sent first.
 */
export type MailKind = 'contact' | 'unverified' | 'security';

/** The kinds, in the order a claim sends them (and the reverse of the order a full outbox lets them go). */
export const MAIL_KINDS = ['security', 'unverified', 'contact'] as const satisfies readonly MailKind[];

/** A mail to send, as the use cases write it; the outbox adds the id and the sender. */
export interface OutgoingMail {
  readonly to: string;
  /**
   * Text, as the reader is to see it: one line. A mailer writes it so that nothing in it reads as
   * anything else (an RFC 2047 encoded-word a visitor typed, `=?utf-8?q?…?=`, stays those characters).
   */
  readonly subject: string;
  /** Plain text; the only body a mail has. */
  readonly text: string;
  readonly replyTo?: string;
  /** Absent: `security`. Only mail that is contact mail says so, so a new kind of mail is kept first. */
  readonly kind?: MailKind;
}

/**
 * A mail to an account's own address (a security notice), handed to the account manager with the
 * change it reports: the manager queues it in the change's unit of work, to the address it reads
 * from the account's row there, or not at all when the change does not happen.
 */
export interface AccountMail extends Omit<OutgoingMail, 'to'> {
  /** When it is queued (the clock's now at the change): it is due from then. */
  readonly queuedAt: Date;
}

/**
 * A mail as it is queued: what the use case wrote, addressed, and when it is due (from then on). `to:
 * null` queues a stand-in: an entry stored with the same work as a mail (a reset request for an
 * address that is nobody's writes one, so it costs what a registered address's does), which is never
 * claimed or counted, and which `Store.deleteExpired` removes once due.
 */
export interface MailToQueue extends Omit<OutgoingMail, 'to'> {
  readonly to: string | null;
  readonly queuedAt: Date;
}

/** The outbox as a unit of work writes to it: a mail is queued in the transaction of what caused it. */
export interface OutboxRepository {
  /** Queues the mail (or, with `to: null`, a stand-in) under a fresh UUID, due from `queuedAt`. */
  add(mail: MailToQueue): Promise<void>;
}

/** Sends one mail now (SMTP, or the log); rejects when it could not hand it on. */
export interface Mailer {
  /**
   * `messageId` (`<…@…>`) is the same for every attempt at one outbox entry, so a mail sent twice
   * (a crash between the send and its record) is recognisable as one by whoever receives it.
   */
  send(mail: OutgoingMail & { readonly messageId: string }): Promise<void>;
}

/** An outbox entry a worker claimed: the mail, its id and how many attempts this claim makes. */
export interface QueuedMail extends OutgoingMail {
  /** As queued; `security` when the queued mail named none. */
  readonly kind: MailKind;
  /** A UUID, fixed when the mail was queued; the Message-ID is made from it. */
  readonly id: string;
  /** Attempts so far, this claim included (1 on the first). */
  readonly attempts: number;
  readonly createdAt: Date;
}

/**
 * The mail worker's side of the durable outbox, which is in the same store as what causes the mails
 * (each is queued, `OutboxRepository.add`, in the unit of work that writes what caused it). Several
 * workers, in several processes on one database, may claim at once: a mail is held by one claim at a time.
 */
export interface MailOutbox {
  /**
   * Claims up to `limit` mails that are due at `now` (security mail first, then contact mail; each
   * kind due longest first) and holds each for `leaseMs`: no other claim gets it until then. A mail whose lease ran out (its worker died) is due
   * again. The claimed mails come back oldest queued first. A stand-in (see `MailToQueue`) is no
   * mail: never claimed.
   */
  claim(now: Date, options: { readonly limit: number; readonly leaseMs: number }): Promise<readonly QueuedMail[]>;
  /** The mail went out: it leaves the outbox (its text may hold a secret, such as a reset link). */
  markSent(id: string): Promise<void>;
  /**
   * The attempt failed: the mail is due again at `retryAt`. Ignored unless the mail is still held by
   * the claim that made attempt number `attempts` (a worker whose lease ran out reschedules nothing).
   */
  retryLater(id: string, attempts: number, retryAt: Date, error: string): Promise<void>;
  /** How many mails wait in the outbox (due, held or scheduled for a retry); stand-ins are not mails. */
  depth(): Promise<number>;
  /**
   * Tells `listener` of every mail the outbox let go unsent (a store in memory bounds what it
   * keeps); returns the unsubscribe function. Stores that keep every mail until it is sent need not
   * implement it.
   */
  onDropped?(listener: (mail: DroppedMail) => void): () => void;
}

/** A mail an outbox let go unsent: what a log line may say of it (never its text: it may hold a secret). */
export interface DroppedMail {
  readonly id: string;
  readonly kind: MailKind;
  readonly createdAt: Date;
  /** Mails of this kind let go so far by this outbox, this one included. */
  readonly droppedOfKind: number;
}

/** A limit: requests per window. */
export interface RateLimitRule {
  /** Requests allowed per window. */
  readonly limit: number;
  readonly windowMs: number;
  /**
   * The rule bounds guesses at a secret (failed logins or wrong codes per account): a limiter that
   * forgets windows to stay bounded (the memory store's LRU) must never forget one of these while
   * it counts, or each eviction would hand out a fresh budget (issue 39).
   */
  readonly guesses?: boolean;
}

/** What the limiter answers for one counted request. */
export interface RateLimitHit {
  /** Whether this request is within the limit. */
  readonly allowed: boolean;
  /** How many requests this window has counted, this one included. */
  readonly count: number;
  /** When the current window ends. */
  readonly resetAt: Date;
}

/**
 * Fixed-window counter. `consume` counts one request and answers in one atomic step, so concurrent
 * calls can never let more than `limit` through in one window.
 */
export interface RateLimiter {
  /**
   * Counts one request against `key`'s window (opening one of `rule.windowMs` from `now` when there
   * is none, or the last one ended at or before `now`) and answers whether it is within `rule.limit`.
   */
  consume(key: string, rule: RateLimitRule, now: Date): Promise<RateLimitHit>;
  /**
   * Takes back one request that `consume` counted in the window still open at `now` (an attempt
   * that turned out not to count, such as a successful login). Never goes below zero, and does
   * nothing once that window has ended. Atomic like `consume`.
   */
  refund(key: string, now: Date): Promise<void>;
  /**
   * Forgets the key's window, whatever it counted (an account's failures after its owner proved
   * themselves by a reset): the next `consume` opens a new one. Atomic like `consume`: a concurrent
   * `consume` counts either in the forgotten window or in the new one.
   */
  clear(key: string): Promise<void>;
  /** Deletes windows that ended at or before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

/**
 * The key that signs device proofs (see device-proofs.ts), one for every process on a store, so a
 * proof one instance issued is honoured by all; created by the first that asks.
 */
export interface DeviceKeyStore {
  /** The stored key; when there is none yet, stores `candidate` and returns it (atomically: concurrent first calls all get one key). */
  getOrCreate(candidate: string): Promise<string>;
}

/** Hashes and verifies passwords. */
export interface PasswordHasher {
  /** A PHC string for the password at the configured work factor. */
  hash(password: string): Promise<string>;
  /** Whether the password matches; `false` (never a throw) for a malformed hash. */
  verify(password: string, phc: string): Promise<boolean>;
  /** Whether the hash is weaker than the configured work factor and should be replaced. */
  needsRehash(phc: string): boolean;
  /** Runs a full verification against a hash of nothing, so an unknown user costs what a wrong password does. */
  verifyDummy(password: string): Promise<void>;
}

/** The time. */
export interface Clock {
  now(): Date;
}

/** Makes session tokens. */
export interface TokenGenerator {
  /** A fresh, unguessable session token (URL-safe characters only). */
  generate(): string;
}

/** Hears which sessions stopped being valid (see `SessionRevocations`). */
export interface RevocationListener {
  /**
   * These sessions (token digests) were deleted, or their rows changed; `'all'` when any session may
   * have been (a user's row changed, a bulk delete, a feed that reconnected and may have missed some).
   */
  revoked(digests: readonly string[] | 'all'): void;
}

/**
 * Sessions that stopped being valid, wherever that happened: through this process's store, in
 * another process on the same database, in the sweep, or in a statement typed by hand. A session
 * cache lives on it: it may answer from memory only while the feed lags by less than its bound.
 */
export interface SessionRevocations {
  /** Delivers every revocation from now on to `listener`; returns the unsubscribe function. */
  subscribe(listener: RevocationListener): () => void;
  /**
   * At most how many milliseconds behind the feed is, as it measures: every revocation committed
   * longer ago than that has reached the listeners. A feed inside this process answers 0; a feed
   * from a database answers the time since it sent its last confirmed heartbeat, and `Infinity`
   * while it is not connected (or has not yet been confirmed since it connected).
   */
  lagMs(): number;
}

