/**
 * Ports: what the use cases need from the outside world. Adapters implement them; absence is `null`.
 */

export interface User {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  /**
   * Whether the account's owner proved they read mail at `email`: by a verification link, by the
   * link of a change of address, or by a completed password reset. `false` for a new account.
   */
  readonly emailVerified: boolean;
}

/** A user with the stored PHC password hash; never leaves the core. */
export interface UserRecord extends User {
  readonly passwordHash: string;
  /**
   * The account's credential generation (ASP.NET Core Identity's security stamp): `FIRST_CREDENTIAL_GENERATION`
   * for a new account, moved on by every change of credential (a password change, a completed reset),
   * never by a rehash. A session is issued only under the current one, and a reset token only works
   * under the one it was requested under.
   */
  readonly credentialGeneration: number;
}

/** The credential generation of every new account. */
export const FIRST_CREDENTIAL_GENERATION = 0;

/** A user to insert. */
export interface NewUser {
  readonly name: string;
  /** Already normalised (trimmed, lower-cased). */
  readonly email: string;
  readonly passwordHash: string;
  readonly createdAt: Date;
}

/** Users. */
export interface UserStore {
  /**
   * Inserts a user at `FIRST_CREDENTIAL_GENERATION`, unverified, under a fresh id (never one a
   * deleted user had); `null` when the e-mail is already taken (atomically, also under concurrent
   * calls). With `verification`, stores its token as the new user's (for its address; `purpose`
   * `verify`) and queues its mails in the same transaction: both or neither.
   */
  insert(user: NewUser, verification?: EmailLink): Promise<User | null>;
  /**
   * Sets the user's name (already trimmed and checked); returns the user as it is now, or `null`
   * when there is no such user.
   */
  rename(userId: number, name: string): Promise<User | null>;
  /** Looks a user up by normalised e-mail. */
  findByEmail(email: string): Promise<UserRecord | null>;
  /**
   * Replaces the stored hash with an equivalent one (a weaker hash upgraded at login), only while the
   * account's credential generation is still `generation`: a password changed meanwhile is never
   * overwritten. Not a change of credential: the generation stays, no session ends, nothing is
   * revoked. Resolves with whether it replaced the hash.
   */
  updatePasswordHash(userId: number, generation: number, passwordHash: string): Promise<boolean>;
  /** Looks a user up by id. */
  findById(userId: number): Promise<UserRecord | null>;
  /**
   * Sets a new password, only while the account's credential generation is still `generation`
   * (the one read before the current password was checked), and in the same transaction moves the
   * generation on, voids the reset token and ends every session of the user but the one whose
   * digest is `keep` (`null`: all of them), and queues `notice` (when given) to the account's address
   * in the outbox. Returns the ended sessions' digests, or `null` when there is no such user or its
   * generation moved on (then nothing changes and nothing is queued).
   */
  changePassword(userId: number, generation: number, passwordHash: string, keep: string | null, notice?: AccountMail | null): Promise<readonly string[] | null>;
  /**
   * Deletes the user with their sessions and reset token, in one transaction, so that the e-mail
   * address may sign up again, only while the account's credential generation is still `generation`.
   * A session create waiting on the user either is ended here (and reported) or creates nothing.
   * Queues `notice` (when given) to the address the account had, in the same transaction: it goes
   * although the account is gone. Returns the ended sessions' digests, or `null` when there was no
   * such user or its generation moved on (then nothing changes and nothing is queued).
   */
  delete(userId: number, generation: number, notice?: AccountMail | null): Promise<readonly string[] | null>;
}

/** A session to store. */
export interface NewSession {
  /** SHA-256 digest of the token (hex); the token itself is never stored. */
  readonly tokenDigest: string;
  readonly userId: number;
  /** The user's credential generation the session is issued under (read before the password was checked). */
  readonly credentialGeneration: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** A session looked up with its user. */
export interface SessionWithUser {
  readonly user: User;
  readonly expiresAt: Date;
}

/** A session as its user sees it in the list of their sessions. */
export interface SessionInfo {
  /** Opaque, random, assigned by the store: neither the token nor its digest. */
  readonly id: string;
  /** Never leaves the core: it tells which listed session is the caller's own. */
  readonly tokenDigest: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** Sessions. */
export interface SessionStore {
  /**
   * Stores the session if its user exists and is still at `credentialGeneration`, in one atomic step
   * with that check: a change of credential or a deletion committing at the same time either ends
   * this session too (and reports it) or makes this create store nothing. Resolves with whether it
   * stored the session (`false` is no failure: the credential the caller checked is stale). With
   * `maxPerUser`, then ends the user's oldest sessions (by `createdAt`) beyond that many, never the
   * new one, and reports them to the revocation feed like any deletion; creates for one user are
   * serialised, so concurrent logins too leave at most `maxPerUser`. With `notice`, queues it to the
   * user's address in the outbox in the same transaction, only when the session is stored.
   */
  create(session: NewSession, maxPerUser?: number, notice?: AccountMail | null): Promise<boolean>;
  /** The user's sessions that have not expired at `now`, oldest first. */
  listByUser(userId: number, now: Date): Promise<readonly SessionInfo[]>;
  /** Deletes the session with this id if it belongs to the user; returns its digest, else `null`. */
  deleteById(userId: number, id: string): Promise<string | null>;
  /**
   * Forgets these sessions at once where they are held in memory (a cache in front of the store);
   * the store itself has already deleted them. Stores need not implement it.
   */
  forget?(digests: readonly string[]): void;
  /** The session and its user in one lookup, expired or not; `null` when unknown. */
  findWithUser(tokenDigest: string): Promise<SessionWithUser | null>;
  /** Deletes a session; returns its expiry, or `null` if there was none (so two deletes report one). */
  delete(tokenDigest: string): Promise<{ readonly expiresAt: Date } | null>;
  /** Deletes every session that expired at or before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

/** A contact message to store. */
export interface ContactMessage {
  readonly name: string;
  readonly email: string;
  readonly message: string;
  readonly clientIp: string;
  readonly userAgent: string | null;
  readonly receivedAt: Date;
}

/** Contact messages. */
export interface ContactStore {
  /**
   * Stores the message and, when `mail` is given, queues that mail in the store's outbox: both or
   * neither (one transaction, where the store has them), so an accepted message is never left unmailed.
   */
  add(message: ContactMessage, mail: OutgoingMail | null): Promise<void>;
}

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
 * A mail to an account's own address (a security notice), handed to the store method that makes the
 * change it reports: that method queues it in the same transaction, with `to` set to the address it
 * reads from the account's row there, or not at all when the change does not happen.
 */
export interface AccountMail extends Omit<OutgoingMail, 'to'> {
  /** When it is queued (the clock's now at the change): it is due from then. */
  readonly queuedAt: Date;
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
 * The durable outbox, in the same store as what causes the mails (they are queued by the store
 * methods that write those, in the same transaction). Several workers, in several processes on one
 * database, may claim at once: a mail is held by one claim at a time.
 */
export interface MailOutbox {
  /**
   * Claims up to `limit` mails that are due at `now` (security mail first, then contact mail; each
   * kind due longest first) and holds each for `leaseMs`: no other claim gets it until then. A mail whose lease ran out (its worker died) is due
   * again. The claimed mails come back oldest queued first. The stand-in a reset request for an
   * unknown address queues (see `PasswordResetStore.request`) is no mail: a claim removes the due
   * ones and never returns one.
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

/** A password reset token to store. */
export interface NewPasswordReset {
  /** SHA-256 digest of the token (hex); the token itself is never stored. */
  readonly tokenDigest: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** What a reset token's use changed. */
export interface PasswordReset {
  readonly userId: number;
  /** The account's normalised e-mail address (its failed-login count is cleared by it). */
  readonly email: string;
  readonly endedSessions: readonly string[];
}

/**
 * Password reset tokens: at most one live token per account, bound to the credential generation the
 * account had when it was requested, so every change of credential voids it.
 */
export interface PasswordResetStore {
  /**
   * When `email` (normalised) is a user's, replaces that user's reset token with this one, bound
   * to the user's credential generation now, and enqueues `mail` in the same transaction. Resolves
   * either way with whether it was a user's (callers must not let that show). The work is the same
   * either way, so neither its time nor what it holds (PGlite's one connection) tells the two apart:
   * for an address that is nobody's the store writes the same token entry, bound to no account (it
   * never resets one, not even one signed up later at the address), and the same outbox entry
   * without a recipient (a stand-in: claims remove it, no mail ever goes to the address).
   */
  request(email: string, reset: NewPasswordReset, mail: OutgoingMail): Promise<boolean>;
  /**
   * Uses the token: when its digest is stored, has not expired at `now` and the user is still at the
   * credential generation it was requested under, deletes it, sets the user's password, moves the
   * generation on and ends every session of the user, all in one transaction (of concurrent calls
   * exactly one succeeds), and queues `notice` (when given) to the user's address. Returns the
   * user's id and e-mail address and the ended sessions' digests, or `null` for an unknown, used,
   * expired or stale token (then nothing changes, and nothing is queued, but that a stale token may
   * be deleted).
   */
  consume(tokenDigest: string, now: Date, passwordHash: string, notice?: AccountMail | null): Promise<PasswordReset | null>;
  /** Deletes every token that expired at or before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

/** What a link mailed to an address does when its token is confirmed. */
export type EmailTokenPurpose =
  /** Marks the account's address verified, if it is still the address the token was mailed to. */
  | 'verify'
  /** Moves the account to the address the token was mailed to (and marks it verified), if that is still free. */
  | 'change';

/** A token of a link mailed to an address (a verification, or a change of address). */
export interface NewEmailToken {
  /** SHA-256 digest of the token (hex); the token itself is never stored. */
  readonly tokenDigest: string;
  readonly purpose: EmailTokenPurpose;
  /** The normalised address the link was mailed to: the account's (`verify`) or the new one (`change`). */
  readonly email: string;
  /**
   * The account's credential generation when its password was checked (or its row read) for this
   * link: the store writes the token only while it is still current, and a `change` confirms only
   * while it stays so.
   */
  readonly credentialGeneration: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** A token and the mails that go with it, written in one transaction. */
export interface EmailLink {
  readonly token: NewEmailToken;
  readonly mails: readonly OutgoingMail[];
}

/** What a confirmed e-mail token changed. */
export interface EmailConfirmed {
  readonly purpose: EmailTokenPurpose;
  /** The user as it is now (verified; at the new address after a change). */
  readonly user: User;
  /** The address the account had before (the same as `user.email` after a verification). */
  readonly previousEmail: string;
  /**
   * Whether the account's owner had proven `previousEmail` (it was verified before this change): a
   * notice to an address nobody proved would be mail to whoever typed it.
   */
  readonly previousEmailVerified: boolean;
  /** The sessions a change of address ended (none for a verification). */
  readonly endedSessions: readonly string[];
}

/**
 * Tokens of the links mailed to prove an address: at most one live token per account (the newest
 * wins, whatever its purpose), each single-use.
 */
export interface EmailVerificationStore {
  /**
   * Replaces the user's token with this one and queues the mails, in one transaction, if the user
   * exists and its credential generation is still the token's. Resolves with whether it wrote (when
   * not, nothing is written: a password changed while the request checked the old one opens nothing).
   */
  request(userId: number, link: EmailLink): Promise<boolean>;
  /**
   * Uses the token, when its digest is stored and it has not expired at `now`, in one transaction
   * (of concurrent calls at most one succeeds):
   * - `verify`: when the account's address is still the one the token was mailed to, deletes the
   *   token and marks the address verified;
   * - `change`: deletes the token, moves the account to the token's address and marks it verified,
   *   moves the credential generation on (voiding a reset token and any login in flight) and ends
   *   every session of the user but `keep` (`null`: all); the unique index on the address decides,
   *   also against a concurrent signup or change: when the address is taken, nothing changes and
   *   the answer is `'taken'`.
   * On success, queues `mails(confirmed)` in the same transaction. `null` for an unknown, used,
   * expired or stale token (then nothing changes but that a stale token may be deleted); a `change`
   * token is stale once the account's credential generation has moved on since `request` (a
   * password change, a completed reset, another change of address): a pending move dies with them.
   */
  consume(tokenDigest: string, now: Date, keep: string | null, mails: (confirmed: EmailConfirmed) => readonly OutgoingMail[]): Promise<EmailConfirmed | 'taken' | null>;
  /** Deletes every token that expired at or before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

/** A limit: requests per window. */
export interface RateLimitRule {
  /** Requests allowed per window. */
  readonly limit: number;
  readonly windowMs: number;
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

/** Everything the use cases need, as one plain object. */
export interface Ports {
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly contacts: ContactStore;
  readonly resets: PasswordResetStore;
  readonly verifications: EmailVerificationStore;
  readonly rateLimiter: RateLimiter;
  readonly deviceKeys: DeviceKeyStore;
  readonly hasher: PasswordHasher;
  readonly clock: Clock;
  readonly tokens: TokenGenerator;
  /** Resolves when the backing store answers; rejects otherwise. Used by the health check. */
  readonly ping: () => Promise<void>;
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

/** What a store adapter provides: the store ports, the health probe, its revocation feed and its lifecycle. */
export interface Store extends Pick<Ports, 'users' | 'sessions' | 'contacts' | 'resets' | 'verifications' | 'rateLimiter' | 'deviceKeys' | 'ping'> {
  /** The mails the store's methods queued, for the mail worker. */
  readonly outbox: MailOutbox;
  /** Every revocation of a session in this store's data (see `SessionRevocations`). */
  readonly revocations: SessionRevocations;
  /** Releases connections and files; the store is unusable afterwards. */
  close(): Promise<void>;
}
