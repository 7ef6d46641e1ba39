/**
 * The core's public surface: the use cases and their options, the ports an adapter implements, the
 * domain errors, the request schemas, and the default adapters that need nothing but Node.
 */
export {
  DEFAULT_SERVICE_NAME,
  RESET_TOKEN_TTL_MS,
  SESSION_TTL_MS,
  DEFAULT_MAX_SESSIONS_PER_USER,
  createAccounts,
  type Accounts,
  type AccountsOptions,
  type ParsedBody,
  type ReadBody,
  type RequestBody,
  type Health,
  type IssuedSession,
  type ListedSession,
  type RequestMeta,
  type SessionMeta,
  type SignedIn,
} from './accounts.ts';
export {
  DOMAIN_ERRORS,
  EmailTaken,
  InvalidCredentials,
  NotFound,
  RateLimited,
  StoreUnavailable,
  Unauthenticated,
  ValidationError,
  WrongPassword,
  isDomainError,
  type DomainError,
  type DomainErrorCode,
  type FieldIssue,
  type RateLimitStatus,
} from './errors.ts';
export { DEVICE_LOGIN_POLICY, DEVICE_PROOF_TTL_MS, type IssuedDeviceProof } from './device-proofs.ts';
export { startHousekeeping } from './housekeeping.ts';
export { contactMail } from './mails.ts';
export {
  DEFAULT_MAIL_LEASE_MS,
  DEFAULT_MAIL_POLL_MS,
  DEFAULT_RETRY_SCHEDULE,
  messageIdOf,
  retryDelayMs,
  startMailWorker,
  type MailWorker,
  type MailWorkerOptions,
  type RetrySchedule,
} from './mail-worker.ts';
export { DEFAULT_PBKDF2_ITERATIONS, Pbkdf2PasswordHasher, type Pbkdf2 } from './password-hasher.ts';
export type * from './ports.ts';
export { ACCOUNT_LOGIN_LIMIT, ACCOUNT_LOGIN_POLICY, RATE_LIMITS, RESET_ADDRESS_LIMIT, RESET_ADDRESS_POLICY, countedLimits, type LimitedOperation, type Quota } from './rate-limits.ts';
export { DEFAULT_IPV6_PREFIX, UNKNOWN_CLIENT, canonicalIp, clientKey } from './client-ip.ts';
export {
  ChangePasswordRequest,
  ContactRequest,
  DeleteAccountRequest,
  LoginRequest,
  PasswordResetConfirmRequest,
  PasswordResetRequest,
  SignupRequest,
  parseRequest, type ContactInput, type LoginInput, type SignupInput } from './schemas.ts';
export { InProcessRevocations } from './revocations.ts';
export {
  DEFAULT_SESSION_CACHE_BYTES,
  DEFAULT_SESSION_CACHE_MAX_AGE_MS,
  DEFAULT_SESSION_CACHE_SIZE,
  DEFAULT_SESSION_CACHE_STALENESS_MS,
  cacheSessions,
  type CachedSessionStore,
  type SessionCacheOptions,
  type SessionCacheStats,
} from './session-cache.ts';
export { digestToken, randomTokens, systemClock } from './system.ts';
