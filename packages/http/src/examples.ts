/**
 * The example values of the contract (`@sl-accounts/service/http/examples`): the route table gives each
 * request body, path parameter and response one, and the discovery documents show them. Every
 * example describes one account's life, in the order the documents tell it: the signup example and
 * then the login example, sent as they are, sign that account up and in (the docs' "Test Request"
 * does exactly that); the password change takes the signup password to a new one, which the account
 * deletion then gives. Error bodies are made by the code that answers them.
 */
import {
  DEFAULT_SERVICE_NAME,
  PROOF_NEEDS_FACTOR,
  EmailTaken,
  UnknownProvider,
  ProviderUnavailable,
  LastSignInMethod,
  AccountChanged,
  SignInRequired,
  InvalidCredentials,
  NotFound,
  StoreUnavailable,
  Unauthenticated,
  ValidationError,
  WrongPassword,
  LoginChallengeInvalid,
  InvalidCode,
  WrongCode,
  SecondFactorRequired,
  TwoFactorState,
  SecondFactorUnavailable,
  type ContactInput,
  type LoginInput,
  type SignupInput,
} from '@sl-accounts/service/core';
import { BODY_LIMIT_BYTES, UNSUPPORTED_ENCODING, tooLarge } from './body.ts';
import { CROSS_SITE_REFUSED } from './cross-site.ts';
import { HttpError, answerForThrown } from './errors.ts';
import { silentLogger } from './logger.ts';

/** A signup request: the account every example describes. */
export const EXAMPLE_SIGNUP: SignupInput = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'correct horse battery staple' };
/** A login request of that account. */
export const EXAMPLE_LOGIN: LoginInput = { email: EXAMPLE_SIGNUP.email, password: EXAMPLE_SIGNUP.password };
/** A password change request of that account: from the signup password to a new one. */
export const EXAMPLE_CHANGE_PASSWORD = { currentPassword: EXAMPLE_SIGNUP.password, newPassword: 'a longer passphrase, never used before' } as const;
/** A password reset request for that account's address. */
export const EXAMPLE_RESET_REQUEST = { email: EXAMPLE_SIGNUP.email } as const;
/** A password reset confirmation, with a placeholder for the mailed token. */
export const EXAMPLE_RESET_CONFIRM = { token: '<the token from the link in the mail>', newPassword: 'a longer passphrase, never used before' } as const;
/** An account deletion request of that account, with the password the change example set. */
export const EXAMPLE_DELETE_ACCOUNT = { password: EXAMPLE_CHANGE_PASSWORD.newPassword } as const;
/** A contact message from that account's owner. */
export const EXAMPLE_CONTACT: ContactInput = { name: EXAMPLE_SIGNUP.name, email: EXAMPLE_SIGNUP.email, message: 'Hello, I have a question about hosting.' };

/** A change of address of that account, confirmed with the password the change example set. */
export const EXAMPLE_EMAIL_CHANGE = { newEmail: 'ada.lovelace@example.org', password: EXAMPLE_CHANGE_PASSWORD.newPassword } as const;
/** A confirmation of a mailed link, with a placeholder for its token. */
export const EXAMPLE_EMAIL_CONFIRM = { token: '<the token from the link in the mail>' } as const;
/** A change of that account's name. */
export const EXAMPLE_UPDATE_PROFILE = { name: 'Augusta Ada King' } as const;

/** The user the examples sign up: the first account of a fresh database, its address not yet verified. */
export const EXAMPLE_USER_RESPONSE = { ok: true, user: { id: 1, name: EXAMPLE_SIGNUP.name, email: EXAMPLE_SIGNUP.email, emailVerified: false } } as const;
/** The body of an operation that answers nothing more than success. */
export const EXAMPLE_OK = { ok: true } as const;

const EXAMPLE_TIME = '2026-01-01T12:00:00.000Z';
/** `GET /api/sessions`'s answer: the current session and another one. */
export const EXAMPLE_SESSIONS = {
  ok: true,
  sessions: [
    { id: '4f9c2a4e-6d1b-4b5e-9a7c-2f1d8e3b6a90', createdAt: EXAMPLE_TIME, expiresAt: '2026-01-08T12:00:00.000Z', current: true },
    { id: 'b3e1d7c2-0a4f-4c8e-8d2b-7e6f5a4c3b21', createdAt: '2025-12-30T08:15:00.000Z', expiresAt: '2026-01-06T08:15:00.000Z', current: false },
  ],
} as const;
/** The id of a session `GET /api/sessions` lists: the one that is not the current session. */
export const EXAMPLE_SESSION_ID = EXAMPLE_SESSIONS.sessions[1].id;
/** `GET /api/health`'s answer when the store answers. */
export const EXAMPLE_HEALTH = { ok: true, status: 'ok', service: DEFAULT_SERVICE_NAME, time: EXAMPLE_TIME } as const;
/** `GET /api/health`'s answer when the store does not. */
export const EXAMPLE_UNHEALTHY = { ok: false, status: 'unavailable', service: DEFAULT_SERVICE_NAME, time: EXAMPLE_TIME } as const;

/** `POST /api/login`'s answer for an account with a second factor on (ADR 0043). */
export const EXAMPLE_SECOND_FACTOR_CHALLENGE = { ok: true, secondFactor: { methods: ['totp', 'recovery'], expiresAt: '2026-01-01T12:05:00.000Z' } } as const;
/** A login's second step with a TOTP code. */
export const EXAMPLE_SECOND_FACTOR_LOGIN = { code: '<6-digit code>' } as const;
/** The start of TOTP enrolment. */
export const EXAMPLE_START_TOTP = { password: EXAMPLE_SIGNUP.password } as const;
/** Its answer. */
export const EXAMPLE_TOTP_ENROLMENT = {
  ok: true,
  otpauthUri: 'otpauth://totp/sl-accounts:ada%40example.com?issuer=sl-accounts&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
  secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
} as const;
/** The code that turns TOTP on. */
export const EXAMPLE_CONFIRM_TOTP = { code: '<6-digit code>' } as const;
/** The recovery codes, shown once. */
export const EXAMPLE_RECOVERY_CODES = { ok: true, recoveryCodes: ['k3j9q-x7p2m', 'a8d2c-0fzr4', 'q1w9e-8tyv3', 'm4n6b-v2c8x', 'p0o9i-8u7y6', 't5r4e-3w2q1', 'z9x8c-7v6b5', 'n4m3k-2j1h0', 'g9f8d-7s6a5', 'y4t3r-2e1w0'] } as const;
/** Turning TOTP off. */
export const EXAMPLE_DISABLE_TOTP = { password: EXAMPLE_SIGNUP.password, code: '<6-digit code>' } as const;
/** Renewing the recovery codes. */
export const EXAMPLE_RENEW_RECOVERY_CODES = { password: EXAMPLE_SIGNUP.password, code: '<6-digit code>' } as const;

/** The body the API answers for `error`. */
export function errorExample(error: unknown): unknown {
  return JSON.parse(answerForThrown(error, silentLogger, 'example').body as string);
}

/** A passkey as `GET /api/passkeys` lists it (its id is the credential ID the authenticator chose). */
export const EXAMPLE_PASSKEY = { id: 'p7LwvKq0y1m3dN9xZ2c8TqHfR4uE6aWs', name: 'Laptop', createdAt: EXAMPLE_TIME, lastUsedAt: '2026-01-02T09:30:00.000Z' } as const;
/** `GET /api/passkeys`'s answer. */
export const EXAMPLE_PASSKEYS = { ok: true, passkeys: [EXAMPLE_PASSKEY] } as const;
/** The answer of a registration or a rename: the passkey as it now is. */
export const EXAMPLE_PASSKEY_RESPONSE = { ok: true, passkey: { ...EXAMPLE_PASSKEY, name: 'Laptop', lastUsedAt: null } } as const;
/** The answer that adds an account's first factor: the passkey, and the recovery codes shown this once. */
export const EXAMPLE_FIRST_PASSKEY_RESPONSE = { ...EXAMPLE_PASSKEY_RESPONSE, recoveryCodes: EXAMPLE_RECOVERY_CODES.recoveryCodes } as const;
/** The proof that asks for registration options or removes a passkey: the password (and, with a factor on, a current code). */
export const EXAMPLE_PASSKEY_PROOF = { password: EXAMPLE_SIGNUP.password } as const;
/** A rename of a passkey. */
export const EXAMPLE_PASSKEY_RENAME = { name: 'Work laptop' } as const;
/**
 * What a browser's `navigator.credentials.create()` or `.get()` answered, as `PublicKeyCredential.toJSON()`
 * gives it, cut short: a real one comes from the authenticator, never typed.
 */
const EXAMPLE_CREDENTIAL = {
  id: EXAMPLE_PASSKEY.id,
  rawId: EXAMPLE_PASSKEY.id,
  type: 'public-key',
  response: { clientDataJSON: '<base64url, from the browser>' },
} as const;
/** The body finishing a registration. */
export const EXAMPLE_PASSKEY_REGISTRATION = { name: 'Laptop', response: { ...EXAMPLE_CREDENTIAL, response: { ...EXAMPLE_CREDENTIAL.response, attestationObject: '<base64url, from the browser>' } } } as const;
/** The body of a sign-in with a passkey. */
export const EXAMPLE_PASSKEY_SIGN_IN = {
  response: { ...EXAMPLE_CREDENTIAL, response: { ...EXAMPLE_CREDENTIAL.response, authenticatorData: '<base64url>', signature: '<base64url>', userHandle: 'MQ' } },
} as const;
/** Registration options, for `navigator.credentials.create()` (through `PublicKeyCredential.parseCreationOptionsFromJSON`). */
export const EXAMPLE_REGISTRATION_OPTIONS = {
  ok: true,
  options: {
    challenge: 'uZ3Xq2pM0bq7nV8cW1kT6yHfR9eL4aJsD5gN2oP7iQ0',
    rp: { name: DEFAULT_SERVICE_NAME, id: 'accounts.example.com' },
    user: { id: 'MQ', name: EXAMPLE_SIGNUP.email, displayName: EXAMPLE_SIGNUP.name },
    pubKeyCredParams: [
      { alg: -7, type: 'public-key' },
      { alg: -257, type: 'public-key' },
    ],
    timeout: 300000,
    attestation: 'none',
    excludeCredentials: [],
    authenticatorSelection: { residentKey: 'required', userVerification: 'required', requireResidentKey: true },
    extensions: { credProps: true },
    hints: [],
  },
} as const;
/** Sign-in options, for `navigator.credentials.get()` (through `PublicKeyCredential.parseRequestOptionsFromJSON`). */
export const EXAMPLE_SIGN_IN_OPTIONS = {
  ok: true,
  options: { rpId: 'accounts.example.com', challenge: 'Vq8Lx1nC4bT7mZ0pR2sW5yK9eH3jD6fA8gU1iO4qN7c', timeout: 300000, userVerification: 'required' },
} as const;

/** The ErrorResponse bodies the API answers, by case. */
export const ERROR_EXAMPLES = {
  emailTaken: errorExample(new EmailTaken()),
  invalidCredentials: errorExample(new InvalidCredentials()),
  unauthenticated: errorExample(new Unauthenticated()),
  wrongPassword: errorExample(new WrongPassword()),
  sessionNotFound: errorExample(new NotFound('Session')),
  passkeyNotFound: errorExample(new NotFound('Passkey')),
  passkeyRefused: errorExample(new InvalidCredentials('The passkey was not accepted')),
  badRegistration: errorExample(new ValidationError([{ path: 'response', message: 'is not a valid answer to a passkey registration of this account (it may have expired: ask for new options)' }])),
  badCursor: errorExample(new ValidationError([{ path: 'cursor', message: 'is not a cursor this API gave' }])),
  badResetToken: errorExample(new ValidationError([{ path: 'token', message: 'is unknown, used or expired' }])),
  crossSite: errorExample(new HttpError(403, CROSS_SITE_REFUSED, 'cross_site')),
  notJson: errorExample(new HttpError(400, 'Content-Type must be application/json', 'json_required')),
  tooLarge: errorExample(tooLarge(BODY_LIMIT_BYTES)),
  unsupportedEncoding: errorExample(new HttpError(415, UNSUPPORTED_ENCODING, 'unsupported_encoding')),
  internal: errorExample(new Error('an example of a bug')),
  unavailable: errorExample(new StoreUnavailable()),
  loginChallengeInvalid: errorExample(new LoginChallengeInvalid()),
  invalidCode: errorExample(new InvalidCode()),
  wrongCode: errorExample(new WrongCode()),
  secondFactorRequired: errorExample(new SecondFactorRequired()),
  proofNeedsFactor: errorExample(new SecondFactorRequired(PROOF_NEEDS_FACTOR)),
  twoFactorOn: errorExample(new TwoFactorState('Two-factor authentication is on already: turn it off first')),
  twoFactorOff: errorExample(new TwoFactorState('Two-factor authentication is not on')),
  twoFactorUnavailable: errorExample(new SecondFactorUnavailable()),
  unknownProvider: errorExample(new UnknownProvider()),
  providerUnavailable: errorExample(new ProviderUnavailable()),
  identityNotFound: errorExample(new NotFound('Identity')),
  lastSignInMethod: errorExample(new LastSignInMethod()),
  accountChanged: errorExample(new AccountChanged()),
  signInRequired: errorExample(new SignInRequired()),
} as const;

/** One event of `GET /api/me/activity`. */
const EXAMPLE_EVENT = {
  id: '42',
  type: 'signed-in',
  at: EXAMPLE_TIME,
  count: 1,
  clientIp: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
  actor: null,
  details: { method: 'password', newDevice: false },
} as const;
/** `GET /api/me/activity`'s answer. */
export const EXAMPLE_ACTIVITY = {
  ok: true,
  events: [EXAMPLE_EVENT, { id: '41', type: 'sign-in-failed', at: '2025-12-31T11:58:00.000Z', count: 3, clientIp: '198.51.100.23', userAgent: 'curl/8.5.0', actor: null, details: {} }],
  nextCursor: null,
} as const;
/** `GET /api/me/export`'s answer. */
export const EXAMPLE_EXPORT = {
  ok: true,
  export: {
    exportedAt: EXAMPLE_TIME,
    profile: { id: 1, name: 'Ada Lovelace', email: 'ada@example.com', emailVerified: true, locked: false },
    sessions: [{ id: '4f9c2a4e-6d1b-4b5e-9a7c-2f1d8e3b6a90', createdAt: EXAMPLE_TIME, expiresAt: '2026-01-08T12:00:00.000Z' }],
    secondFactors: { totp: { enabled: true, createdAt: '2025-12-01T09:00:00.000Z' }, recoveryCodesLeft: 9 },
    passkeys: [{ id: 'AbC123_-xyz', name: 'Laptop', createdAt: '2025-12-02T10:00:00.000Z', lastUsedAt: EXAMPLE_TIME, transports: ['internal'] }],
    pendingLinks: { emailLink: { purpose: 'change', email: 'ada@lovelace.example', createdAt: '2025-12-31T11:00:00.000Z', expiresAt: '2026-01-01T11:00:00.000Z' }, passwordReset: null },
    identities: [],
    activity: [EXAMPLE_EVENT],
    contactMessages: [{ name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello!', clientIp: '203.0.113.7', userAgent: null, receivedAt: '2025-12-20T15:00:00.000Z' }],
  },
} as const;
