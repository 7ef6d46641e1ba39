/**
 * The core's public surface: the use cases and their options, the ports an adapter implements, the
 * domain errors, the request schemas, and the default adapters that need nothing but Node. Fakes
 * and fixtures for tests are in `@sl-accounts/core/testing`.
 */

// The use cases.
export {
  /** Creates the use cases over the given ports. */
  createAccounts,
  /** The use cases `createAccounts` answers. */
  type Accounts,
  /** What `createAccounts` needs: a store's ports, with the hasher, clock and token source optional. */
  type AccountsPorts,
} from './accounts.ts';
export {
  /** `createAccounts`'s options: limits, service name, reset link, session cap. */
  type AccountsOptions,
  /** Live sessions per user by default. */
  DEFAULT_MAX_SESSIONS_PER_USER,
  /** The service name where none is configured. */
  DEFAULT_SERVICE_NAME,
} from './use-cases/context.ts';
export {
  /** What a use case knows about the request besides its body: client address, user agent, session, device proofs. */
  type RequestMeta,
  /** What the session operations know about the request: the presented session token(s). */
  type SessionMeta,
  /** A use case's request body: the parsed value or a `ReadBody`. */
  type RequestBody,
  /** A request body as parsed JSON, not yet checked. */
  type ParsedBody,
  /** A function that reads the body, called only after the rate limit counted the request. */
  type ReadBody,
} from './use-cases/request.ts';
export {
  /** What signup and login answer: the user, the session and the device proof. */
  type SignedIn,
} from './use-cases/signup.ts';
export {
  /** A fresh session: the raw token for the client and its expiry. */
  type IssuedSession,
  /** A session as the list of its user's sessions shows it. */
  type ListedSession,
  /** How long a session lives, from its issue. */
  SESSION_TTL_MS,
} from './use-cases/sessions.ts';
export {
  /** The health check's answer. */
  type Health,
} from './use-cases/service.ts';
export {
  /** Every event that has a security notice, by the name options and configuration use. */
  SECURITY_EVENTS,
  /** An event that has a security notice. */
  type SecurityEvent,
  /** Which security notices are sent (`AccountsOptions.securityNotices`). */
  type SecurityNoticeOptions,
  /** Whether a name is a `SecurityEvent`. */
  isSecurityEvent,
  /** The security notices as the use cases write them. */
  type SecurityNotices,
  /** What a notice may name besides the request (the new address of a change of address). */
  type NoticeDetails,
  /** The security notices of a service (what `createAccounts` uses; for a host's own events). */
  securityNotices,
} from './use-cases/notices.ts';
export {
  /** How long a password reset token is valid. */
  RESET_TOKEN_TTL_MS,
} from './use-cases/password-reset.ts';
export {
  /** How long a verification or change-of-address link is valid. */
  EMAIL_TOKEN_TTL_MS,
} from './use-cases/email.ts';
export {
  /** A proof that a client signed in to an account, for the client to keep. */
  type IssuedDeviceProof,
  /** How long a device proof is honoured. */
  DEVICE_PROOF_TTL_MS,
  /** The policy name of a device's own failed-login limit. */
  DEVICE_LOGIN_POLICY,
} from './device-proofs.ts';

// Rate limits.
export {
  /** The quota a rate-limited use case's request left, in its answer. */
  type Quota,
  /** The quota counted before a rate-limited use case threw this failure. */
  countedLimits,
  /** The operations limited per client address. */
  type LimitedOperation,
  /** The per-client limits of each operation. */
  RATE_LIMITS,
  /** Failed logins per account and window. */
  ACCOUNT_LOGIN_LIMIT,
  /** The policy name of ACCOUNT_LOGIN_LIMIT. */
  ACCOUNT_LOGIN_POLICY,
  /** The policy name of a signed-in session's own limit on its password checks. */
  SESSION_PASSWORD_POLICY,
  /** Reset requests per e-mail address and window. */
  RESET_ADDRESS_LIMIT,
  /** The policy name of RESET_ADDRESS_LIMIT. */
  RESET_ADDRESS_POLICY,
  /** Links mailed per account and window (verification, change of address). */
  EMAIL_LINK_ACCOUNT_LIMIT,
  /** The policy name of EMAIL_LINK_ACCOUNT_LIMIT. */
  EMAIL_LINK_ACCOUNT_POLICY,
} from './rate-limits.ts';
export {
  /** The canonical spelling of a client's IP address, or `null`. */
  canonicalIp,
  /** The key a limit counts a canonical address under (IPv6 by network). */
  clientKey,
  /** The IPv6 prefix length that is one client by default. */
  DEFAULT_IPV6_PREFIX,
  /** The one shared client of callers without a usable address. */
  UNKNOWN_CLIENT,
} from './client-ip.ts';

// Failures.
export {
  /** The request body broke the operation's schema; `issues` lists every field's problem. */
  ValidationError,
  /** The e-mail address is already registered. */
  EmailTaken,
  /** Unknown e-mail or wrong password (the same for both). */
  InvalidCredentials,
  /** No live session was presented. */
  Unauthenticated,
  /** The password given to confirm a change is wrong. */
  WrongPassword,
  /** The resource does not exist or is not the caller's. */
  NotFound,
  /** A rate limit refused the request; `rateLimit` is its quota. */
  RateLimited,
  /** A store did not answer. */
  StoreUnavailable,
  /** Every domain error class, once. */
  DOMAIN_ERRORS,
  /** Whether a value is one of the domain errors. */
  isDomainError,
  /** Any domain error. */
  type DomainError,
  /** The literal `code` of a domain error. */
  type DomainErrorCode,
  /** One field's problem in a ValidationError. */
  type FieldIssue,
  /** The quota of one rate-limit policy after a request was counted. */
  type RateLimitStatus,
} from './errors.ts';

// Request schemas (zod), which the HTTP and MCP documents describe.
export {
  /** Signup's body. */
  SignupRequest,
  /** Login's body. */
  LoginRequest,
  /** The contact form's body. */
  ContactRequest,
  /** A password change's body. */
  ChangePasswordRequest,
  /** A reset request's body. */
  PasswordResetRequest,
  /** A reset confirmation's body. */
  PasswordResetConfirmRequest,
  /** An account deletion's body. */
  DeleteAccountRequest,
  /** The body confirming a mailed verification or change-of-address link. */
  EmailVerificationConfirmRequest,
  /** A change of address's body. */
  EmailChangeRequest,
  /** A change of name's body. */
  UpdateProfileRequest,
  /** A signup body after parsing. */
  type SignupInput,
  /** A login body after parsing. */
  type LoginInput,
  /** A contact body after parsing. */
  type ContactInput,
  /** Parses a body with one of the schemas; throws ValidationError with every issue. */
  parseRequest,
} from './schemas.ts';

// The ports: what an adapter implements.
export type {
  /** Everything the use cases need, as one object. */
  Ports,
  /** What a store adapter provides: the store ports, its ping, outbox, revocation feed and lifecycle. */
  Store,
  /** A user as the use cases give it out. */
  User,
  /** A user with the stored password hash. */
  UserRecord,
  /** A user to insert. */
  NewUser,
  /** Users. */
  UserStore,
  /** A session to store. */
  NewSession,
  /** A session looked up with its user. */
  SessionWithUser,
  /** A session as its user's list shows it, with its digest. */
  SessionInfo,
  /** Sessions. */
  SessionStore,
  /** A contact message to store. */
  ContactMessage,
  /** Contact messages. */
  ContactStore,
  /** A mail as the use cases write it. */
  OutgoingMail,
  /** A mail to an account's own address: the store fills `to` in with the change. */
  AccountMail,
  /** Sends one mail. */
  Mailer,
  /** An outbox entry a worker claimed. */
  QueuedMail,
  /** The durable outbox the mail worker drains. */
  MailOutbox,
  /** What a mail is for: contact mail, or security mail (kept first). */
  MailKind,
  /** A mail an outbox let go unsent. */
  DroppedMail,
  /** A password reset token to store. */
  NewPasswordReset,
  /** What a reset token's use changed. */
  PasswordReset,
  /** Password reset tokens. */
  PasswordResetStore,
  /** What a link mailed to an address does: verify it, or move the account to it. */
  EmailTokenPurpose,
  /** A token of a link mailed to an address. */
  NewEmailToken,
  /** A token and the mails written with it. */
  EmailLink,
  /** What a confirmed e-mail token changed. */
  EmailConfirmed,
  /** Tokens of verification and change-of-address links. */
  EmailVerificationStore,
  /** A limit: requests per window. */
  RateLimitRule,
  /** What the limiter answers for one counted request. */
  RateLimitHit,
  /** The fixed-window counter. */
  RateLimiter,
  /** The key that signs device proofs, shared by every process on a store. */
  DeviceKeyStore,
  /** Hashes and verifies passwords. */
  PasswordHasher,
  /** The time. */
  Clock,
  /** Makes session tokens. */
  TokenGenerator,
  /** Hears which sessions stopped being valid. */
  RevocationListener,
  /** The feed of sessions that stopped being valid. */
  SessionRevocations,
} from './ports.ts';

export {
  /** The credential generation of every new account. */
  FIRST_CREDENTIAL_GENERATION,
} from './ports.ts';

// Adapters that need nothing but Node, and the background work.
export {
  /** The PBKDF2-SHA256 password hasher. */
  Pbkdf2PasswordHasher,
  /** The PBKDF2 function the hasher may be given instead of node:crypto's. */
  type Pbkdf2,
  /** PBKDF2 iterations by default. */
  DEFAULT_PBKDF2_ITERATIONS,
} from './password-hasher.ts';
export {
  /** The system clock. */
  systemClock,
  /** Session tokens from the CSPRNG. */
  randomTokens,
  /** The stored form of a session token (its SHA-256). */
  digestToken,
} from './system.ts';
export {
  /** A revocation feed for stores whose every change goes through this process. */
  InProcessRevocations,
} from './revocations.ts';
export {
  /** A session store with an in-memory cache in front, kept right by the revocation feed. */
  cacheSessions,
  /** The store `cacheSessions` answers, with its stats. */
  type CachedSessionStore,
  /** `cacheSessions`'s options. */
  type SessionCacheOptions,
  /** The cache's counters. */
  type SessionCacheStats,
  /** Sessions the cache holds by default. */
  DEFAULT_SESSION_CACHE_SIZE,
  /** Bytes the cache holds by default. */
  DEFAULT_SESSION_CACHE_BYTES,
  /** How long an entry is answered from memory before the store is asked again, by default. */
  DEFAULT_SESSION_CACHE_MAX_AGE_MS,
  /** How far behind the revocation feed may be by default. */
  DEFAULT_SESSION_CACHE_STALENESS_MS,
} from './session-cache.ts';
export {
  /** Runs the sweep on a timer. */
  startHousekeeping,
} from './housekeeping.ts';
export {
  /** Drains the outbox through a Mailer, with retries. */
  startMailWorker,
  /** The running worker. */
  type MailWorker,
  /** `startMailWorker`'s options. */
  type MailWorkerOptions,
  /** Retry delays: doubling from `baseMs` up to `maxMs`. */
  type RetrySchedule,
  /** The retry schedule by default. */
  DEFAULT_RETRY_SCHEDULE,
  /** How long a claim holds a mail by default. */
  DEFAULT_MAIL_LEASE_MS,
  /** How often the worker polls by default. */
  DEFAULT_MAIL_POLL_MS,
} from './mail-worker.ts';
export {
  /** A visitor's text made fit for a header: one line, no control characters, nothing that reorders it on screen. */
  headerText,
} from './mails.ts';
