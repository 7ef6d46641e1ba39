/**
 * Domain errors. Each has a literal `code`; a transport maps it to its own answer (the HTTP contract
 * to a status, in one table). The core names no transport's status: a host that calls a use case
 * directly answers its failures with the contract's `answerError`.
 */

/** One problem with a request field: `path` is the dotted field path, empty for the body itself. */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** The request body broke the operation's schema; `issues` lists every field's problem. */
export class ValidationError extends Error {
  readonly code = 'validation' as const;
  readonly issues: readonly FieldIssue[];
  constructor(issues: readonly FieldIssue[]) {
    const first = issues[0];
    super(first ? `Invalid request: ${first.path ? `${first.path}: ` : ''}${first.message}` : 'Invalid request');
    this.name = 'ValidationError';
    this.issues = issues;
  }
}

/** The e-mail address is already registered. */
export class EmailTaken extends Error {
  readonly code = 'email_taken' as const;
  constructor() {
    super('This e-mail address is already registered');
    this.name = 'EmailTaken';
  }
}

/** Same text for an unknown e-mail and a wrong password, so neither can be told apart. */
export class InvalidCredentials extends Error {
  readonly code = 'invalid_credentials' as const;
  /** `message`: another text for a sign-in that names no address (a passkey's). */
  constructor(message = 'Invalid e-mail or password') {
    super(message);
    this.name = 'InvalidCredentials';
  }
}

/** No live session was presented. */
export class Unauthenticated extends Error {
  readonly code = 'unauthenticated' as const;
  constructor() {
    super('Not signed in, or the session has expired');
    this.name = 'Unauthenticated';
  }
}

/** The password given to confirm a change (the current one, or the account's at deletion) is wrong. */
export class WrongPassword extends Error {
  readonly code = 'wrong_password' as const;
  constructor(message = 'The password is wrong') {
    super(message);
    this.name = 'WrongPassword';
  }
}

/** The resource does not exist, or is not the caller's (the answer does not say which). */
export class NotFound extends Error {
  readonly code = 'not_found' as const;
  constructor(what: string) {
    super(`${what} not found`);
    this.name = 'NotFound';
  }
}

/** A rate limit refused the request; `rateLimit` is its quota. */
export class RateLimited extends Error {
  readonly code = 'rate_limited' as const;
  readonly retryAfterSeconds: number;
  readonly rateLimit: RateLimitStatus;
  constructor(rateLimit: RateLimitStatus) {
    super(`Too many requests; try again in ${rateLimit.resetSeconds} seconds`);
    this.name = 'RateLimited';
    this.rateLimit = rateLimit;
    this.retryAfterSeconds = rateLimit.resetSeconds;
  }
}

/** The second step of a login came without a live login challenge (`sl_login`): none, expired, used, or ended by too many wrong codes. */
export class LoginChallengeInvalid extends Error {
  readonly code = 'login_challenge_invalid' as const;
  constructor() {
    super('No login in progress, or it expired: log in with the password again');
    this.name = 'LoginChallengeInvalid';
  }
}

/** The code (or recovery code) of a login's second step is wrong, used already, or not this account's. */
export class InvalidCode extends Error {
  readonly code = 'invalid_code' as const;
  constructor() {
    super('Invalid code');
    this.name = 'InvalidCode';
  }
}

/** The code a signed-in owner gave to confirm a change (or an enrolment) is wrong or used already. */
export class WrongCode extends Error {
  readonly code = 'wrong_code' as const;
  constructor() {
    super('The code is wrong, or was used already');
    this.name = 'WrongCode';
  }
}

/** The change needs a second factor verified for this session within the last minutes (a step-up), or a code in the body. */
export class SecondFactorRequired extends Error {
  readonly code = 'second_factor_required' as const;
  constructor(message = 'This change needs your second factor: send a current code, or verify it again') {
    super(message);
    this.name = 'SecondFactorRequired';
  }
}

/** The second factor is not in the state the operation needs (on already, no enrolment started, not on). */
export class TwoFactorState extends Error {
  readonly code = 'two_factor_state' as const;
  constructor(message: string) {
    super(message);
    this.name = 'TwoFactorState';
  }
}

/** No key to seal secrets with is configured (SECRETS_KEY): TOTP cannot be enrolled; or a stored secret does not open under it. */
export class SecondFactorUnavailable extends Error {
  readonly code = 'two_factor_unavailable' as const;
  constructor(message = 'Two-factor authentication is not configured on this service') {
    super(message);
    this.name = 'SecondFactorUnavailable';
  }
}

/**
 * Passkeys have no relying party: the service was composed without the origin its pages are
 * served from (createService's `publicUrl`), and guessing one from a request's Host would bind
 * passkeys to whatever name a client sent (docs/decisions/0048-startup-checks.md).
 */
export class PasskeysUnavailable extends Error {
  readonly code = 'passkeys_unavailable' as const;
  constructor() {
    super('Passkeys are not configured on this service: it needs the origin its pages are served from (createService publicUrl)');
    this.name = 'PasskeysUnavailable';
  }
}

/** An operator locked the account (issue 43): the right password, or any other way in, opens nothing. */
export class AccountLocked extends Error {
  readonly code = 'account_locked' as const;
  constructor() {
    super('This account is locked: contact the site to have it unlocked');
    this.name = 'AccountLocked';
  }
}

/** A store (database) did not answer. Adapters throw it so callers can answer "try later", not "bug". */
export class StoreUnavailable extends Error {
  readonly code = 'store_unavailable' as const;
  constructor(options?: { cause?: unknown }) {
    super('The service is temporarily unavailable', options);
    this.name = 'StoreUnavailable';
  }
}

/** No identity provider is configured under this id. */
export class UnknownProvider extends Error {
  readonly code = 'unknown_provider' as const;
  constructor() {
    super('No identity provider is configured under this id');
    this.name = 'UnknownProvider';
  }
}

/** The identity provider did not answer in time, or answered what no client can use (its discovery, its token endpoint). */
export class ProviderUnavailable extends Error {
  readonly code = 'provider_unavailable' as const;
  constructor(options?: { cause?: unknown }) {
    super('The identity provider is unavailable; try again later', options);
    this.name = 'ProviderUnavailable';
  }
}

/**
 * Why a sign-in or a link through an identity provider ended without one (the callback's
 * `error=<reason>`; docs/api.md lists them):
 * - `sign_in_state_invalid`: no `sl_oauth` cookie, another browser's, a `state` that is not its own, or one used or expired;
 * - `provider_refused`: the provider answered with an error (the person said no, or the provider refused the client);
 * - `identity_invalid`: the provider's answer failed its checks (the ID token's signature, issuer, audience, expiry or nonce; a code replayed);
 * - `email_missing`: the provider gives no address, and an account needs one;
 * - `account_exists`: an account holds the provider's address: sign in to it another way and link from there;
 * - `identity_taken`: the identity is another account's (a link);
 * - `already_linked`: the account has an identity at this provider already (a link).
 */
export type SignInFailure = 'sign_in_state_invalid' | 'provider_refused' | 'identity_invalid' | 'email_missing' | 'account_exists' | 'identity_taken' | 'already_linked';

/** A sign-in or a link through an identity provider failed for `reason`; no session was started and nothing linked. */
export class SignInRefused extends Error {
  readonly code = 'sign_in_refused' as const;
  readonly reason: SignInFailure;
  constructor(reason: SignInFailure, options?: { cause?: unknown }) {
    super(`The sign-in through the identity provider failed: ${reason}`, options);
    this.name = 'SignInRefused';
    this.reason = reason;
  }
}

/** Unlinking would leave the account no way to sign in (no password, passkey or other identity). */
export class LastSignInMethod extends Error {
  readonly code = 'last_sign_in_method' as const;
  constructor() {
    super('This is the account’s last way to sign in: set a password or add a passkey first');
    this.name = 'LastSignInMethod';
  }
}

/**
 * A change lost its race: another change of the account committed between this request's checks and
 * its write (the credential generation moved on), and nothing was changed; the session that asked
 * still stands (had that change ended it, the answer is Unauthenticated). Read again and retry.
 */
export class AccountChanged extends Error {
  readonly code = 'account_changed' as const;
  constructor() {
    super('The account changed while this request was checked: nothing was changed; read it again and retry');
    this.name = 'AccountChanged';
  }
}

/**
 * A mailed link that would verify the account's address or move the account to a new one, opened
 * without one of the account's sessions: a link proves the inbox, not who holds the account (whoever
 * made it with someone else's address knows its password), so nothing changes, the link included.
 * Sign in to the account in the same browser and open the link again; an inbox owner who did not
 * make the account resets its password instead, which removes every way in its maker added.
 */
export class SignInRequired extends Error {
  readonly code = 'sign_in_required' as const;
  constructor() {
    super('Sign in to the account in this browser, then open the link again. If you did not make this account, reset its password instead; if you did not ask for this link, ignore it.');
    this.name = 'SignInRequired';
  }
}

/**
 * Every domain error, once. `DomainError`, `isDomainError` and a transport's table by `code` (which
 * must name an answer for every one) are all derived from this list, so adding an error here is the one step.
 */
export const DOMAIN_ERRORS = [
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
  LastSignInMethod,
  AccountLocked,
  AccountChanged,
  SignInRequired,
] as const;

/** Any domain error. */
export type DomainError = InstanceType<(typeof DOMAIN_ERRORS)[number]>;

/** The literal `code` of each domain error. */
export type DomainErrorCode = DomainError['code'];

/** Whether a value is one of the domain errors. */
export function isDomainError(error: unknown): error is DomainError {
  return DOMAIN_ERRORS.some((type) => error instanceof type);
}

/** The state of one rate-limit policy for one client after a request was counted. */
export interface RateLimitStatus {
  /** Policy name, e.g. `login`. */
  readonly policy: string;
  /** Requests allowed per window. */
  readonly limit: number;
  /** Window length in whole seconds. */
  readonly windowSeconds: number;
  /** Requests left in the current window (0 when limited). */
  readonly remaining: number;
  /** Whole seconds until the current window ends, at least 1. */
  readonly resetSeconds: number;
}
