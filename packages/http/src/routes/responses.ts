/**
 * What several routes answer alike, written once: the success bodies, the cookies a sign-in sets,
 * and the documented responses more than one route shares (the session-ended 401 among them, which
 * every session route gets from its `auth`).
 */
import type { Quota, RateLimitStatus, SignedIn, User } from '@sl-accounts/service/core';
import { ERROR_EXAMPLES, EXAMPLE_SIGN_IN_OPTIONS, EXAMPLE_USER_RESPONSE } from '../examples.ts';
import { deviceCookie, sessionCookie, type DEVICE_COOKIE_PATHS } from '../session-cookie.ts';
import type { DocumentedResponse, OperationResult } from './route.ts';

/** `{ ok: true, ...fields }` with its status, and the quota the request left when it was counted. */
export function okAnswer(status: number, fields: object = {}, limits?: readonly RateLimitStatus[]): OperationResult {
  return { status, body: { ok: true, ...fields }, ...(limits ? { limits } : {}) };
}

/** A `UserResponse`: the user as the API shows it, with the cookies and quota of the request. */
export function userAnswer(status: number, user: User, setCookie?: string | readonly string[], limits?: readonly RateLimitStatus[]): OperationResult {
  return {
    status,
    ...(limits ? { limits } : {}),
    body: { ok: true, user: { id: user.id, name: user.name, email: user.email, emailVerified: user.emailVerified } },
    ...(setCookie ? { setCookie } : {}),
  };
}

/** A sign-in path the device cookie is sent to (`DEVICE_COOKIE_PATHS`). */
type DevicePath = (typeof DEVICE_COOKIE_PATHS)[number];

/**
 * The answer of an operation that starts a session: the user, the session cookie, the device cookie
 * for each sign-in it is sent to (`devicePaths`: the login's unless a sign-in says more), then
 * `more` (a cleared login challenge).
 */
export function signedInAnswer(
  status: number,
  { user, session, device, limits }: SignedIn & Quota,
  base: string,
  { devicePaths = ['/api/login'], more = [] }: { readonly devicePaths?: readonly DevicePath[]; readonly more?: readonly string[] } = {},
): OperationResult {
  const devices = devicePaths.map((path) => deviceCookie(device.proof, device.maxAgeSeconds, base, path));
  return userAnswer(status, user, [sessionCookie(session.token, session.maxAgeSeconds), ...devices, ...more], limits);
}

/** The 401 of every route with `auth: 'session'` that declares none of its own (see routes/index.ts). */
export const SESSION_ENDED: DocumentedResponse = {
  description: 'The session cookie is missing, unknown or expired; the cookie is cleared.',
  body: 'ErrorResponse',
  example: ERROR_EXAMPLES.unauthenticated,
  cookie: 'clear',
};

/** A fresh session: a login's, a second step's or a passkey's. */
export const SIGNED_IN: DocumentedResponse = { description: 'Signed in with a fresh session.', body: 'UserResponse', example: EXAMPLE_USER_RESPONSE, cookie: 'set' };

/** WebAuthn options naming the account's passkeys (a login's second step, a step-up). */
export const PASSKEY_OPTIONS: DocumentedResponse = { description: 'The options.', body: 'PasskeyOptionsResponse', example: EXAMPLE_SIGN_IN_OPTIONS };

/** What a 403 of an operation that asks the owner's proof (password, then a factor) may say. */
export const PROOF_CODES = ['wrong_password', 'second_factor_required', 'wrong_code'] as const;

/** The 409 of a change that lost its race with another change of the account (its session still stands): nothing changed. */
export const ACCOUNT_CHANGED: DocumentedResponse = {
  description: 'Another change of the account (a password change, a factor added or removed) committed while this request was checked: nothing changed; read again and retry (`account_changed`).',
  body: 'ErrorResponse',
  example: ERROR_EXAMPLES.accountChanged,
  codes: ['account_changed'],
};

/** The 403 of an operation that adds or removes a way to sign in: the password and a factor, both in the request. */
export const PROOF_REFUSED: DocumentedResponse = {
  description: 'The password is wrong or the account has none yet (`wrong_password`), the code or recovery code is wrong (`wrong_code`) or missing with a second factor on (`second_factor_required`), or the request came from another site’s page.',
  body: 'ErrorResponse',
  example: ERROR_EXAMPLES.proofNeedsFactor,
  codes: PROOF_CODES,
};

/** The 403 of changing the address or deleting the account: the password, and the factor the step-up window may stand for. */
export const PASSWORD_AND_CODE_REFUSED: DocumentedResponse = {
  description: 'The password is wrong, the code is wrong (`wrong_code`) or missing with a second factor on (`second_factor_required`), or the request came from another site’s page.',
  body: 'ErrorResponse',
  example: ERROR_EXAMPLES.wrongPassword,
  codes: PROOF_CODES,
};
