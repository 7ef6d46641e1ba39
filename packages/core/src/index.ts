/**
 * The core's public surface: the use cases and their options, the ports an adapter implements, the
 * domain errors, the request schemas, and the default adapters that need nothing but Node. Fakes
 * and fixtures for tests are in `@sl-accounts/service/core/testing`.
 */

// The use cases.
export { createAccounts, createAdmin, type Accounts, type AccountsPorts } from './accounts.ts';
export { type AccountsOptions, DEFAULT_MAX_SESSIONS_PER_USER, DEFAULT_SERVICE_NAME } from './use-cases/context.ts';
export { type RequestMeta, type SessionMeta, type RequestBody, type ParsedBody, type ReadBody } from './use-cases/request.ts';
export { type IssuedSession, type ListedSession, SESSION_TTL_MS } from './use-cases/sessions.ts';
export { type ListedPasskey, type RelyingParty, PASSKEY_CHALLENGE_TTL_MS, PASSKEY_ALGORITHMS, DEFAULT_PASSKEY_NAME } from './use-cases/passkeys.ts';
export { type Health, type SweepCounts } from './use-cases/service.ts';
export { RESET_TOKEN_TTL_MS } from './use-cases/password-reset.ts';
export {
  SIGN_IN_STATE_TTL_MS,
  type ListedProvider,
  type ListedIdentity,
  type StartedProviderSignIn,
  type ProviderStartMeta,
  type ProviderCallbackMeta,
  type ProviderCallbackEnd,
} from './use-cases/sign-in-providers.ts';
export { EMAIL_TOKEN_TTL_MS } from './use-cases/email.ts';
export {
  SECURITY_EVENTS,
  type SecurityEvent,
  type SecurityNoticeOptions,
  isSecurityEvent,
  type SecurityNotices,
  type NoticeDetails,
  securityNotices,
} from './use-cases/notices.ts';
export { type IssuedDeviceProof, DEVICE_PROOF_TTL_MS, DEVICE_LOGIN_POLICY } from './device-proofs.ts';

// Rate limits.
export {
  type Quota,
  countedLimits,
  type LimitedOperation,
  RATE_LIMITS,
  ACCOUNT_LOGIN_LIMIT,
  ACCOUNT_LOGIN_POLICY,
  SESSION_PASSWORD_POLICY,
  RESET_ADDRESS_LIMIT,
  RESET_ADDRESS_POLICY,
  RESET_OPERATOR_POLICY,
  EMAIL_LINK_ACCOUNT_LIMIT,
  EMAIL_LINK_ACCOUNT_POLICY,
  NEW_DEVICE_NOTICE_LIMIT,
  NEW_DEVICE_NOTICE_POLICY,
  PROFILE_SESSION_LIMIT,
  PROFILE_SESSION_POLICY,
  SECOND_FACTOR_LIMIT,
  SECOND_FACTOR_ACCOUNT_POLICY,
  SECOND_FACTOR_RECOVERY_LIMIT,
  PASSKEY_OPTIONS_SESSION_LIMIT,
  PASSKEY_OPTIONS_SESSION_POLICY,
  PASSKEY_SIGN_IN_TOTAL_LIMIT,
  PASSKEY_SIGN_IN_TOTAL_POLICY,
  PROVIDER_SIGN_IN_TOTAL_LIMIT,
  PROVIDER_SIGN_IN_TOTAL_POLICY,
  SECOND_FACTOR_RECOVERY_POLICY,
} from './rate-limits.ts';
export { INBOX_LIMIT, INBOX_POLICY, inboxOf, slotBudget, type InboxBudget, type InboxTicket } from './inbox.ts';
export { canonicalIp, clientKey, DEFAULT_IPV6_PREFIX, UNKNOWN_CLIENT } from './client-ip.ts';

// Failures.
export {
  ValidationError,
  EmailTaken,
  InvalidCredentials,
  Unauthenticated,
  WrongPassword,
  NotFound,
  RateLimited,
  StoreUnavailable,
  LoginChallengeInvalid,
  InvalidCode,
  WrongCode,
  SecondFactorRequired,
  TwoFactorState,
  SecondFactorUnavailable,
  PasskeysUnavailable,
  UnknownProvider,
  ProviderUnavailable,
  SignInRefused,
  type SignInFailure,
  LastSignInMethod,
  AccountLocked,
  AccountChanged,
  SignInRequired,
  DOMAIN_ERRORS,
  isDomainError,
  type DomainError,
  type DomainErrorCode,
  type FieldIssue,
  type RateLimitStatus,
} from './errors.ts';

// Request schemas (zod), which the HTTP and MCP documents describe.
export {
  SignupRequest,
  LoginRequest,
  ProviderSignInRequest,
  IdentityLinkRequest,
  UnlinkIdentityRequest,
  ContactRequest,
  ChangePasswordRequest,
  PasswordResetRequest,
  PasswordResetConfirmRequest,
  DeleteAccountRequest,
  EmailVerificationConfirmRequest,
  EmailChangeRequest,
  UpdateProfileRequest,
  PasskeyRegistrationRequest,
  PasskeySignInRequest,
  PasskeyRenameRequest,
  StartTotpRequest,
  ConfirmTotpRequest,
  DisableTotpRequest,
  RenewRecoveryCodesRequest,
  SecondFactorLoginRequest,
  PasskeyProofRequest,
  type SignupInput,
  type LoginInput,
  type ContactInput,
  parseRequest,
} from './schemas.ts';
// Published patterns spell white space out, for every regex dialect (the OpenAPI document's trimmed fields).
export { ANY_CHARACTER, WHITE_SPACE, NOT_WHITE_SPACE, isLocalPath } from './schemas.ts';

// The store port: what a store adapter implements (small repositories inside units of work).
export type {
  Store,
  Repositories,
  Ports,
  User,
  UserRecord,
  NewUser,
  UserChanges,
  UserExpectation,
  UserRepository,
  NewSession,
  SessionWithUser,
  SessionInfo,
  KeptSessions,
  SessionRepository,
  OneTimeTokenPurpose,
  OneTimeToken,
  OneTimeTokenPut,
  OneTimeTokenRepository,
  ContactMessage,
  ContactRepository,
  ExpiredCounts,
  Passkey,
  PasskeyRepository,
  FactorKind,
  TotpFactor,
  TotpRepository,
  RecoveryCodeRepository,
  StepUp,
  AccountDirectory,
  PendingLinks,
} from './store.ts';

// The login flow (docs/decisions/0053-one-login-flow.md): its states, the second step, the one ending.
export {
  LOGIN_CHALLENGE_TTL_MS,
  MAX_CHALLENGE_FAILURES,
  startChallenge,
  nextStep,
  finishLogin,
  endSignIn,
  type SignedIn,
  type LoginStates,
  type LoginState,
  type LoginStep,
  type CheckedSignIn,
  type StartedChallenge,
  type SecondFactorNeeded,
  type VerifiedFactor,
  type FactorVerifier,
  type LoginChallenge,
  takeLoginChallenge,
} from './use-cases/login-flow.ts';
// Second factors (docs/decisions/0043-login-challenge-and-statuses.md, 0044-step-up-and-secrets-at-rest.md).
export { factorMethods, hasSecondFactor, recordStepUp, hasRecentStepUp, requireStepUp } from './use-cases/second-factor.ts';
export { type FactorSource, STEP_UP_WINDOW_MS, type UseCaseContext } from './use-cases/context.ts';
export { type LoginChallengeMeta } from './use-cases/login.ts';
export { PROOF_NEEDS_FACTOR, RECOVERY_CODE_COUNT, type TotpEnrolment } from './use-cases/two-factor.ts';
export { TOTP_ALGORITHM, TOTP_DIGITS, TOTP_PERIOD_SECONDS, TOTP_WINDOW, secretContext } from './use-cases/totp-codes.ts';
export { secretBox, developmentSecretBox, InvalidSecretsKey, type SecretBox } from './secrets.ts';
export { FIRST_CREDENTIAL_GENERATION, NO_PASSWORD, PASSKEY_CHALLENGES_PER_ACCOUNT, type Identity, type IdentityRepository } from './store.ts';
export {
  identityProvider,
  freshChecks,
  GITHUB_ENDPOINTS,
  GITHUB_ISSUER,
  PROVIDER_ID,
  DEFAULT_PROVIDER_TIMEOUT_MS,
  type IdentityProvider,
  type IdentityProviderOptions,
  type ProviderIdentity,
  type ProviderKind,
  type CallbackChecks,
} from './identity-providers.ts';
export { EXPORT_ACTIVITY_LIMIT, type ActivityUseCases, type ActivityView, type ActivityPage, type AccountExport, type AccountProfile } from './use-cases/activity.ts';
export { ACCOUNT_PAGE_SIZE, MAX_REASON_LENGTH, parseAccountId, type AdminUseCases, type OperatorMeta, type AccountDetails, type AccountList } from './use-cases/admin.ts';
// The activity log (docs/decisions/0057-activity-log.md).
export {
  ACTIVITY_TYPES,
  ACTIVITY_PAGE_SIZE,
  DEFAULT_ACTIVITY_RETENTION_DAYS,
  failureSummary,
  isActivityType,
  type ActivityType,
  type ActivityDetail,
  type ActivityEntry,
  type NewActivity,
  type ActivityEvent,
  type ActivityQuery,
  type ActivityRepository,
} from './activity.ts';

// The other ports.
export type {
  OutgoingMail,
  AccountMail,
  MailToQueue,
  OutboxRepository,
  Mailer,
  QueuedMail,
  MailOutbox,
  MailKind,
  DroppedMail,
  RateLimitRule,
  RateLimitHit,
  RateLimiter,
  DeviceKeyStore,
  PasswordHasher,
  Clock,
  TokenGenerator,
  RevocationListener,
  SessionRevocations,
} from './ports.ts';

// The account rules over a store: each change one unit of work (the store contract runs them on every store).
export {
  createAccountManager,
  toUser,
  type AccountManager,
  type ManagedStore,
  type EmailLink,
  type EmailTokenPurpose,
  type EmailConfirmed,
  type NewPasswordReset,
  type PasswordReset,
} from './account-manager.ts';
export { MAIL_KINDS } from './ports.ts';

// Adapters that need nothing but Node, and the background work.
export { Pbkdf2PasswordHasher, type Pbkdf2, DEFAULT_PBKDF2_ITERATIONS } from './password-hasher.ts';
export { systemClock, randomTokens, digestToken } from './system.ts';
export { InProcessRevocations } from './revocations.ts';
export {
  cacheSessions,
  type SessionCache,
  type SessionCacheOptions,
  type SessionCacheStats,
  DEFAULT_SESSION_CACHE_SIZE,
  DEFAULT_SESSION_CACHE_BYTES,
  DEFAULT_SESSION_CACHE_MAX_AGE_MS,
  DEFAULT_SESSION_CACHE_STALENESS_MS,
} from './session-cache.ts';
export { startHousekeeping } from './housekeeping.ts';
export {
  startMailWorker,
  type MailWorker,
  type MailWorkerOptions,
  type RetrySchedule,
  DEFAULT_RETRY_SCHEDULE,
  DEFAULT_MAIL_LEASE_MS,
  DEFAULT_MAIL_POLL_MS,
} from './mail-worker.ts';
export { headerText } from './mails.ts';
