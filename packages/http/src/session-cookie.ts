/** The `sl_session` cookie: name and attributes fixed by the spec and DESIGN.md. */
export const SESSION_COOKIE = 'sl_session';

const ATTRIBUTES = 'Path=/; HttpOnly; Secure; SameSite=Lax';

/** `sl_session=<token>; Max-Age=…; Path=/; HttpOnly; Secure; SameSite=Lax`. Tokens are base64url: no escaping needed. */
export function sessionCookie(token: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; Max-Age=${maxAgeSeconds}; ${ATTRIBUTES}`;
}

/** Tells the browser to drop the cookie (Max-Age=0, and a past Expires for old clients). */
export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; ${ATTRIBUTES}`;
}

/**
 * The device cookie (OWASP's device cookies; see the core's device-proofs.ts): proof that this
 * browser signed in to an account before, so others' failed logins cannot lock it out. Sent only to
 * the login operation, which alone reads it.
 */
export const DEVICE_COOKIE = 'sl_device';

/** The sign-ins a device cookie is sent to: the login (and its second step), and a passkey's sign-in. */
export const DEVICE_COOKIE_PATHS = ['/api/login', '/api/passkeys/sign-in'] as const;

/**
 * `sl_device=<proof>; Max-Age=…; Path=<base>/api/login; HttpOnly; Secure; SameSite=Lax`, where `base`
 * is where the service is mounted (a host's prefix, then `basePath`): a browser sends the cookie
 * back only to the sign-in it names (`path`, the login's by default). Proofs are base64url and dots.
 */
export function deviceCookie(proof: string, maxAgeSeconds: number, base = '', path: (typeof DEVICE_COOKIE_PATHS)[number] = '/api/login'): string {
  return `${DEVICE_COOKIE}=${proof}; Max-Age=${maxAgeSeconds}; Path=${base}${path}; HttpOnly; Secure; SameSite=Lax`;
}

/**
 * The login challenge's cookie (docs/decisions/0043-login-challenge-and-statuses.md): the password
 * was right, the second factor is still to come. Sent only to the login's own paths, as `sl_device`.
 */
export const LOGIN_CHALLENGE_COOKIE = 'sl_login';

/** `sl_login=<token>; Max-Age=…; Path=<base>/api/login; HttpOnly; Secure; SameSite=Lax`. */
export function loginChallengeCookie(token: string, maxAgeSeconds: number, base = ''): string {
  return `${LOGIN_CHALLENGE_COOKIE}=${token}; Max-Age=${maxAgeSeconds}; Path=${base}/api/login; HttpOnly; Secure; SameSite=Lax`;
}

/** Drops the `sl_login` cookie (the challenge was used). */
export function clearedLoginChallengeCookie(base = ''): string {
  return `${LOGIN_CHALLENGE_COOKIE}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=${base}/api/login; HttpOnly; Secure; SameSite=Lax`;
}

/**
 * The cookie of a sign-in through an identity provider (issue 42): binds the provider's callback to
 * the browser that started it. Sent only to the sign-in's own paths; 10 minutes at most.
 */
export const SIGN_IN_STATE_COOKIE = 'sl_oauth';

/** `sl_oauth=<token>; Max-Age=…; Path=<base>/api/sign-in; HttpOnly; Secure; SameSite=Lax`. */
export function signInStateCookie(token: string, maxAgeSeconds: number, base = ''): string {
  return `${SIGN_IN_STATE_COOKIE}=${token}; Max-Age=${maxAgeSeconds}; Path=${base}/api/sign-in; HttpOnly; Secure; SameSite=Lax`;
}

/** Drops the `sl_oauth` cookie (its state was used). */
export function clearedSignInStateCookie(base = ''): string {
  return `${SIGN_IN_STATE_COOKIE}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=${base}/api/sign-in; HttpOnly; Secure; SameSite=Lax`;
}
