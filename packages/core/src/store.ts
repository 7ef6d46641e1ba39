/**
 * The store port: what a database adapter implements. Storage only: every account rule (the
 * credential generation's checks, which sessions a change ends, which mails it queues, the caps) is
 * the core's (`account-manager.ts`), written once over these small repositories.
 *
 * - **Units of work.** `store.transaction(work)` runs `work` with repositories whose writes commit
 *   together when it resolves, or not at all when it throws (the error is passed on). The same
 *   repositories on the store itself run outside any unit of work: each call there is one atomic
 *   step on its own (one statement in SQL).
 * - **Isolation.** Nothing a unit of work writes is seen outside it before it commits. Inside it,
 *   reads see its own writes and whatever committed before them (SQL's READ COMMITTED is enough);
 *   where a race needs more, the method says so: `users.update`, `sessions.insert` and
 *   `oneTimeTokens.put` are compare-and-sets, and a row they touch stays locked until the unit ends.
 * - **Inside `work`, use only `tx`.** A call on the store itself from inside `work` may wait for the
 *   unit it is in (a store with one connection, such as PGlite, waits for ever): the memory store
 *   refuses it with an error, so the core's tests find such a call. Nothing slow that is not the
 *   store (a password hash) runs inside `work` either: a store may serialise units of work.
 * - **Fast paths.** Three steps are on the hot path of every request of their kind and are one
 *   statement each (docs/decisions/0038-rules-in-the-core-stores-as-repositories.md): the session
 *   lookup with its user (`sessions.findWithUser`), the limiter's window (`rateLimiter.consume`) and
 *   the conditional session insert of a login (`sessions.insert`).
 * - **Absence is `null`.** A store that cannot reach its database rejects with `StoreUnavailable`.
 *
 * The store contract (`@sl-accounts/store-contract`) is the acceptance test of an implementation.
 */
import type { ActivityRepository } from './activity.ts';
import type { Clock, DeviceKeyStore, MailOutbox, OutboxRepository, PasswordHasher, RateLimiter, SessionRevocations, TokenGenerator } from './ports.ts';

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
   * The account's credential generation (ASP.NET Core Identity's security stamp):
   * `FIRST_CREDENTIAL_GENERATION` for a new account, moved on by every change of credential (a
   * password change, a completed reset), of address, and by the deletion; never by a rehash or a
   * change of name. A session or e-mail token is written only under the current one, a reset token
   * only works under the one it was requested under, and what was read of a row at one generation
   * (its address above all) is still so while the generation is.
   */
  readonly credentialGeneration: number;
  /**
   * Whether an operator locked the account (issue 43): it cannot sign in by any method. Absent when
   * it is not locked (a store leaves the field out rather than writing `false`).
   */
  readonly locked?: boolean;
}

/** The credential generation of every new account. */
export const FIRST_CREDENTIAL_GENERATION = 0;

/**
 * The password hash of an account that has no password (one made by a sign-in through an identity
 * provider): no PHC string, so it never verifies; a reset through the inbox sets one.
 */
export const NO_PASSWORD = '$none$';

/** A user to insert. */
export interface NewUser {
  readonly name: string;
  /** Already normalised (trimmed, lower-cased). */
  readonly email: string;
  readonly passwordHash: string;
  readonly createdAt: Date;
}

/** What an update writes on a user's row; a field left out keeps its value. Names at least one field. */
export interface UserChanges {
  readonly name?: string;
  /** Normalised; no two users ever hold one address (see `UserRepository.update`). */
  readonly email?: string;
  readonly emailVerified?: boolean;
  readonly passwordHash?: string;
  readonly credentialGeneration?: number;
  /** Locks (`true`) or unlocks (`false`) the account. */
  readonly locked?: boolean;
}

/** What a conditional update expects the user's row still to hold (the compare of a compare-and-set). */
export interface UserExpectation {
  readonly credentialGeneration?: number;
  readonly email?: string;
  readonly emailVerified?: boolean;
}

/** Users. Addresses are unique (as stored: normalised), and an id is never given twice. */
export interface UserRepository {
  /**
   * Inserts a user at `FIRST_CREDENTIAL_GENERATION`, unverified, under a fresh id, and answers it;
   * `null` when the address is another user's, also when that user is inserted (or moves there) at
   * the same time: a unique index decides. A taken address is no error, and a unit of work goes on.
   */
  insert(user: NewUser): Promise<UserRecord | null>;
  /** The user at this (normalised) address. */
  findByEmail(email: string): Promise<UserRecord | null>;
  /** The user with this id. */
  findById(userId: number): Promise<UserRecord | null>;
  /**
   * Writes `changes` on the user's row only while it holds every value of `expected`, in one atomic
   * step with that check (a compare-and-set), and answers the row as it is afterwards; `null` when
   * there is no such user or the row no longer holds `expected` (then nothing is written). Inside a
   * unit of work the row stays locked until the unit ends: a `sessions.insert` or `oneTimeTokens.put` under the generation
   * for the user waits, then sees the change. Throws `EmailTaken` when `changes.email` is another
   * user's address; the unit of work it ran in cannot go on (let the error leave `work`: it rolls
   * back). A change of `name`, `email` or `emailVerified` is told to the revocation feed as a change
   * of every session of the user (each shows its user).
   */
  update(userId: number, changes: UserChanges, expected?: UserExpectation): Promise<UserRecord | null>;
  /**
   * Deletes the user with everything bound to it (its sessions, single-use tokens, second factors,
   * recovery codes, passkeys and identities at providers); whether
   * there was such a user. Sessions it deletes are told to the revocation feed.
   */
  delete(userId: number): Promise<boolean>;
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

/** Which of a user's sessions `SessionRepository.deleteByUser` keeps. */
export interface KeptSessions {
  /** This session stays (the caller's own, or the one just inserted). */
  readonly except?: string | null;
  /** The newest this many of the others stay too (by `createdAt`, then by digest: the greater is newer). */
  readonly keepNewest?: number;
}

/** Sessions. Every deletion, whichever method or cascade makes it, is told to the revocation feed. */
export interface SessionRepository {
  /**
   * Fast path: the conditional insert of a login. Stores the session only while its user exists at
   * `session.credentialGeneration`, in one atomic step with that check (`INSERT … SELECT … FROM
   * users WHERE id = ? AND credential_generation = ?`), and resolves with whether it stored it. A
   * change of credential or a deletion that commits at the same time either finds the session (and
   * ends it) or makes the insert store nothing: never a session under a stale generation, never an
   * error for a user that is gone. Inside a unit of work the user's row stays locked until the unit
   * ends, so inserts for one user are serialised (SQL: `FOR NO KEY UPDATE`); outside one it only
   * shares the row's lock for its one statement (`FOR SHARE`).
   */
  insert(session: NewSession): Promise<boolean>;
  /** Fast path (every authenticated request): the session and its user in one lookup, expired or not. */
  findWithUser(tokenDigest: string): Promise<SessionWithUser | null>;
  /** The user's sessions that have not expired at `now`, oldest first (by `createdAt`, then by `id`). */
  listByUser(userId: number, now: Date): Promise<readonly SessionInfo[]>;
  /** Deletes one session and answers its expiry, or `null` when there was none: of concurrent deletes, one reports it. */
  delete(tokenDigest: string): Promise<{ readonly expiresAt: Date } | null>;
  /** Deletes the user's sessions but those `kept` names; answers the deleted digests. */
  deleteByUser(userId: number, kept?: KeptSessions): Promise<readonly string[]>;
  /** Records on the session that a factor of `kind` was verified for it at `at` (its newest step-up); `false` when there is no such session. */
  recordStepUp(tokenDigest: string, kind: FactorKind, at: Date): Promise<boolean>;
  /** The session's newest step-up; `null` before any, or when there is no such session. */
  findStepUp(tokenDigest: string): Promise<StepUp | null>;
}

/** What a single-use token is for; a take names the purposes it accepts, so a token never serves another. */
export type OneTimeTokenPurpose =
  /** A password reset link's token (slot `reset:<email>`; `userId` `null` when the address was nobody's). */
  | 'password-reset'
  /** A verification link's token: marks `email` verified while it is still the account's (slot `email:<userId>`). */
  | 'verify-email'
  /** A change-of-address link's token: moves the account to `email` (slot `email:<userId>`, shared with `verify-email`). */
  | 'change-email'
  /** A login challenge (`sl_login`): the password was right, the second factor is to come. */
  | 'login'
  /** A WebAuthn challenge to register a passkey on the signed-in account `userId`. */
  | 'passkey-register'
  /** A WebAuthn challenge to sign in with a discoverable passkey: no account named (`userId` `null`). */
  | 'passkey-sign-in'
  /** A WebAuthn challenge of the second step of account `userId`'s login. */
  | 'passkey-second-factor'
  /** A WebAuthn challenge of a step-up of a signed-in session of account `userId`. */
  | 'passkey-step-up'
  /** An identity provider's sign-in state (issue 42): `data` holds what the core needs. */
  | 'sign-in-state';

/**
 * A single-use token as stored (docs/decisions/0054-one-single-use-token-repository.md): a reset or
 * e-mail link's token, a login challenge, a WebAuthn challenge, an identity provider's state.
 */
export interface OneTimeToken {
  /** SHA-256 digest of the token (hex); the token itself is never stored. */
  readonly digest: string;
  readonly purpose: OneTimeTokenPurpose;
  /** The account it is for; `null` for none (a reset asked for an address nobody has, a passkey sign-in). */
  readonly userId: number | null;
  /** The account's credential generation it was issued under (`null` with `userId`). */
  readonly credentialGeneration: number | null;
  /** The normalised address it was mailed to or asked for; `null` for a token no mail carries. */
  readonly email: string | null;
  /** Opaque to the store (at most a few KB): what the purpose needs beyond these fields. */
  readonly data: string | null;
  /** Wrong answers so far (the login challenge's second step); 0 for a fresh token. */
  readonly failures: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** How `OneTimeTokenRepository.put` stores a token. */
export interface OneTimeTokenPut {
  /**
   * Store only while the user exists at `token.credentialGeneration`, in one atomic step with that
   * check (a compare-and-set, as `sessions.insert`; inside a unit of work the user's row stays locked
   * until it ends).
   */
  readonly underGeneration?: boolean;
  /** At most one token per slot: a put replaces the token in its slot (`reset:<email>`, `email:<userId>`). */
  readonly slot?: string;
  /**
   * Keep only the account's newest `count` tokens of these purposes (by `createdAt`, then digest),
   * deleting older ones; concurrent puts, also on several processes sharing a database, leave at
   * most that many, the newest (passkey challenges: PASSKEY_CHALLENGES_PER_ACCOUNT).
   */
  readonly keepNewest?: { readonly purposes: readonly OneTimeTokenPurpose[]; readonly count: number };
}

/**
 * Single-use tokens, by digest: one repository for every purpose. A token bound to an account goes
 * with it; an expired one stays for the sweep (`Store.deleteExpired`).
 */
export interface OneTimeTokenRepository {
  /**
   * Stores the token (replacing one with its digest, and the one in its slot); whether it stored it.
   * A token bound to an account (`userId` not null) is stored only while that account exists, in one
   * atomic step with that check (as `totp.putPending`: a deletion under way is waited for, then nothing
   * is stored); `false` when it is gone, or when `underGeneration` failed.
   */
  put(token: OneTimeToken, options?: OneTimeTokenPut): Promise<boolean>;
  /**
   * Deletes and answers the token with this digest when it has not expired at `now` and its purpose
   * is one of `purposes`; `null` otherwise, and then nothing is deleted (a token of another purpose
   * stays for its own). Of concurrent takes, also on several processes sharing a database, exactly one wins.
   */
  take(purposes: OneTimeTokenPurpose | readonly OneTimeTokenPurpose[], digest: string, now: Date): Promise<OneTimeToken | null>;
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

/** Contact messages: written, never read back by the service (the operator reads the table, or the mails). */
export interface ContactRepository {
  /** Stores the message, exactly as given (every string the core accepts, the time to the millisecond). */
  add(message: ContactMessage): Promise<void>;
}

/**
 * A passkey: a WebAuthn credential of one account (docs/decisions/0045-passkeys.md). Only its public
 * key is stored; the private key never leaves the authenticator.
 */
export interface Passkey {
  /** The credential ID the authenticator chose, base64url; unique across every account. */
  readonly id: string;
  readonly userId: number;
  /** The owner's name for it (trimmed; the bounds of `PasskeyRenameRequest`). */
  readonly name: string;
  /** The COSE public key, as `@simplewebauthn/server` gives it (bytes the library reads back). */
  readonly publicKey: Uint8Array;
  /** The authenticator's signature counter as last seen (0 for an authenticator that does not count). */
  readonly counter: number;
  /** The transports the browser reported at registration (hints for the next ceremony). */
  readonly transports: readonly string[];
  readonly createdAt: Date;
  /** When it last signed in or confirmed a factor; `null` before its first use. */
  readonly lastUsedAt: Date | null;
}

/** Passkeys, by credential ID. A user's deletion deletes theirs. */
export interface PasskeyRepository {
  /**
   * Stores the passkey only while its user exists at `credentialGeneration` (a compare-and-set, as
   * `sessions.insert`; inside a unit of work the user's row stays locked until it ends) and no
   * passkey has its id (of any account): whether it stored it.
   */
  insert(passkey: Passkey, credentialGeneration: number): Promise<boolean>;
  /** The passkey with this credential ID, whoever's it is. */
  findById(id: string): Promise<Passkey | null>;
  /** The user's passkeys, oldest first (by `createdAt`, then by id). */
  listByUser(userId: number): Promise<readonly Passkey[]>;
  /** Renames the user's passkey with this id; whether there was one. */
  rename(userId: number, id: string, name: string): Promise<boolean>;
  /** Deletes the user's passkey with this id; whether there was one (of concurrent deletes, one reports it). */
  delete(userId: number, id: string): Promise<boolean>;
  /**
   * Records a use: writes `counter` and `usedAt` only while the passkey exists and its stored counter
   * is below `counter`, or both are 0 (an authenticator that does not count), in one atomic step
   * with that check (a compare-and-set): whether it wrote. Of two concurrent uses that carry the
   * same counter, one writes; a counter that went backwards, or a passkey removed meanwhile, writes
   * nothing.
   */
  recordUse(id: string, counter: number, usedAt: Date): Promise<boolean>;
}

/**
 * A kind of second factor (docs/decisions/0043-login-challenge-and-statuses.md): an open set, so a
 * kind added later (passkeys) verifies through the same login challenge and step-up as the others.
 */
export type FactorKind = 'totp' | 'recovery' | 'passkey';

/** An account's TOTP factor: pending (enrolment started, not confirmed) or on. */
export interface TotpFactor {
  readonly userId: number;
  /** The shared secret sealed by the core (AES-256-GCM under SECRETS_KEY): the store never sees it in the clear. */
  readonly sealedSecret: string;
  /** Whether the factor is on (a code confirmed the enrolment). */
  readonly enabled: boolean;
  /** The last time step (RFC 6238's counter) a code was accepted for; `null` before any. */
  readonly lastUsedStep: number | null;
  readonly createdAt: Date;
}

/** TOTP factors, one per account (pending or on), gone with the account. */
export interface TotpRepository {
  /**
   * Stores a pending factor with this sealed secret, replacing a pending one; `false` (nothing
   * written) when the account's factor is on already, or there is no such user.
   */
  putPending(userId: number, sealedSecret: string, createdAt: Date): Promise<boolean>;
  /** The account's factor, pending or on. */
  find(userId: number): Promise<TotpFactor | null>;
  /**
   * Turns the pending factor on, only while it is still pending with this sealed secret (a
   * compare-and-set: of concurrent confirmations one wins), and records `step` as used; whether it did.
   */
  enable(userId: number, sealedSecret: string, step: number): Promise<boolean>;
  /**
   * Records `step` as used while the factor is on and no step at or after it was used: a
   * compare-and-set in one atomic step, so of two requests (in any process) with one code, one
   * passes; whether it did.
   */
  useStep(userId: number, step: number): Promise<boolean>;
  /** Deletes the account's factor, pending or on; whether there was one. */
  delete(userId: number): Promise<boolean>;
  /** How many accounts have their factor on (the start's check of SECRETS_KEY). */
  countEnabled(): Promise<number>;
  /**
   * The factor stored last (latest `createdAt`, pending or on), or `null` when there is none: the
   * start opens its secret to check that SECRETS_KEY is the key things were sealed under.
   */
  newest(): Promise<TotpFactor | null>;
}

/** Recovery codes: digests, single-use, per account, gone with the account. */
export interface RecoveryCodeRepository {
  /** Replaces every code of the account with these digests (none: the account has no codes). */
  replace(userId: number, digests: readonly string[]): Promise<void>;
  /**
   * Deletes the account's code with this digest and answers how many are left; `null` when the
   * account has no such code. Of concurrent uses of one code, one gets it.
   */
  use(userId: number, digest: string): Promise<number | null>;
  /** How many codes the account has left. */
  count(userId: number): Promise<number>;
}

/**
 * Outstanding WebAuthn challenges kept per account (registration, a login's second step, step-up
 * together): a new one past it replaces the oldest, so however many sessions or requests ask, an
 * account holds at most this many rows (issue 39: one session made 159,418 in 60 s). Ten covers an
 * owner with a few tabs open; a replaced ceremony fails as an expired one does ("ask again").
 */
export const PASSKEY_CHALLENGES_PER_ACCOUNT = 10;

/** A step-up: a factor was verified for this session at `verifiedAt` (kept on the session's row). */
export interface StepUp {
  readonly kind: FactorKind;
  readonly verifiedAt: Date;
}

/**
 * An account's identity at an identity provider (docs/decisions/0056-identity-linking.md): the
 * provider's issuer and its subject for the person, unique together, so an identity belongs to at
 * most one account; an account holds at most one identity per configured provider.
 */
export interface Identity {
  /** The configured provider's id (`google`, `github`, an `AUTH_<ID>_*` id): the account's key for it. */
  readonly provider: string;
  /** The issuer identifier (OIDC `iss`; for GitHub, its fixed issuer URL). */
  readonly issuer: string;
  /** The provider's subject for the person (OIDC `sub`; GitHub's numeric user id). */
  readonly subject: string;
  readonly userId: number;
  /** The address the provider gave when it was linked (shown to the owner), if any. */
  readonly email: string | null;
  readonly linkedAt: Date;
}

/** Identities at providers: unique by issuer and subject, one per account and provider, gone with the account. */
export interface IdentityRepository {
  /**
   * Stores the identity only while its user exists at `credentialGeneration` (a compare-and-set, as
   * `passkeys.insert`; inside a unit of work the user's row stays locked until it ends), no identity
   * has its issuer and subject (of any account), and the account has none of its provider: whether
   * it stored it. Of two concurrent inserts of one identity, exactly one stores it.
   */
  insert(identity: Identity, credentialGeneration: number): Promise<boolean>;
  /** The identity with this issuer and subject, whoever's it is. */
  find(issuer: string, subject: string): Promise<Identity | null>;
  /** The account's identities, oldest first (by `linkedAt`, then provider). */
  listByUser(userId: number): Promise<readonly Identity[]>;
  /** Deletes the account's identity at this provider; whether there was one. */
  delete(userId: number, provider: string): Promise<boolean>;
}

/** What one unit of work, or the store outside any, offers: the repositories. */
export interface Repositories {
  /** Users and their credentials. */
  readonly users: UserRepository;
  /** Sessions, by token digest. */
  readonly sessions: SessionRepository;
  /** Single-use tokens of every purpose (links, login and WebAuthn challenges), by digest. */
  readonly oneTimeTokens: OneTimeTokenRepository;
  /** Contact messages. */
  readonly contacts: ContactRepository;
  /** Mails to send, queued with what caused them. */
  readonly outbox: OutboxRepository;
  /** Passkeys (WebAuthn credentials), by credential ID. */
  readonly passkeys: PasskeyRepository;
  /** TOTP factors (secrets sealed by the core). */
  readonly totp: TotpRepository;
  /** Recovery codes, as digests. */
  readonly recoveryCodes: RecoveryCodeRepository;
  /** Identities at identity providers, by issuer and subject. */
  readonly identities: IdentityRepository;
  /** The activity log (security events), newest first. */
  readonly activity: ActivityRepository;
}

/**
 * What the operator's tools read beyond the use cases' own repositories (issue 43): accounts found by
 * the start of their address, and the contact messages sent from an address (for the owner's
 * export). Read-only, outside units of work: one statement each.
 */
export interface AccountDirectory {
  /**
   * Accounts whose (normalised) address starts with `prefix`, by id ascending, with ids above
   * `after` (the cursor: the last id of the page before); at most `limit`.
   */
  search(prefix: string, after: number | null, limit: number): Promise<readonly UserRecord[]>;
  /** The contact messages stored with this (normalised) address as the sender's, oldest first; at most `limit`. */
  contactsFrom(email: string, limit: number): Promise<readonly ContactMessage[]>;
  /**
   * The account's pending links, metadata only (never a token or its digest): its e-mail link's
   * token (a verification or a change of address, with the address it was mailed to), and a reset
   * token bound to it; expired ones included until the sweep.
   */
  pendingLinks(userId: number): Promise<PendingLinks>;
}

/** What `AccountDirectory.pendingLinks` answers. */
export interface PendingLinks {
  readonly emailLink: { readonly purpose: 'verify' | 'change'; readonly email: string; readonly createdAt: Date; readonly expiresAt: Date } | null;
  readonly passwordReset: { readonly createdAt: Date; readonly expiresAt: Date } | null;
}

/** What `Store.deleteExpired` deleted. */
export interface ExpiredCounts {
  readonly sessions: number;
  /** Outbox stand-ins due at the time (see `MailToQueue`). */
  readonly standIns: number;
  /** Single-use tokens never taken, by purpose (a purpose with none deleted is left out). */
  readonly oneTimeTokens: Readonly<Partial<Record<OneTimeTokenPurpose, number>>>;
}

/**
 * A store adapter: the repositories (each call outside a unit of work is one atomic step), units of
 * work, and the store's own mechanisms: the mail outbox a worker claims from, the rate limiter, the
 * key that signs device proofs, the revocation feed of its sessions, housekeeping and its lifecycle.
 */
export interface Store extends Repositories {
  /**
   * Runs `work` as one unit of work and answers what it answers: every write made through `tx`
   * commits when `work` resolves, and none when it throws (the error is passed on). Not nested: `work`
   * never calls `transaction`. Revocations of what it deleted or changed are told once it committed.
   */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** The outbox: queued to in units of work (and outside them), claimed from by the mail worker. */
  readonly outbox: OutboxRepository & MailOutbox;
  /** Fast path: the rate limiter's windows, shared by every process on the store. */
  readonly rateLimiter: RateLimiter;
  /** The key that signs device proofs, shared by every process on the store. */
  readonly deviceKeys: DeviceKeyStore;
  /** Every revocation of a session in this store's data (see `SessionRevocations`). */
  readonly revocations: SessionRevocations;
  /** The operator's reads: accounts by the start of their address, contact messages by sender (issue 43). */
  readonly directory: AccountDirectory;
  /**
   * Housekeeping: deletes the sessions and single-use tokens that expired at or before `now`, and
   * the outbox's stand-ins due by then; answers how many of each. `now` is the caller's clock's.
   */
  deleteExpired(now: Date): Promise<ExpiredCounts>;
  /** Resolves when the backing store answers; rejects otherwise (the health check). */
  ping(): Promise<void>;
  /** Releases connections and files; the store is unusable afterwards. */
  close(): Promise<void>;
}

/** Everything the use cases need, as one plain object. */
export interface Ports {
  readonly store: Store;
  readonly hasher: PasswordHasher;
  readonly clock: Clock;
  readonly tokens: TokenGenerator;
}
