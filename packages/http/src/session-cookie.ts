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
