/**
 * Fixed values for the contract cases. Time is always passed in, so the cases use dates far from
 * today: an adapter that read its own clock would fail them.
 */
import { FIRST_CREDENTIAL_GENERATION, type AccountManager, type NewSession, type OneTimeToken, type OneTimeTokenPurpose, type User } from '@sl-accounts/service/core';

export const T0 = new Date('2031-03-01T12:00:00.000Z');
export const at = (ms: number) => new Date(T0.getTime() + ms);
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const PHC = '$pbkdf2-sha256$i=1000$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
export const OTHER_PHC = '$pbkdf2-sha256$i=600000$b3RoZXJzYWx0b3RoZXJzYQ$b3RoZXJoYXNob3RoZXJoYXNob3RoZXJoYXNob3RoZXI';

/** The credential generation of a new account. */
export const G0 = FIRST_CREDENTIAL_GENERATION;

/** A 64-hex digest, as core's digestToken makes them. */
export const digest = (n: number) => n.toString(16).padStart(64, '0');

/** The single-use token whose digest is `digest(n)`: fresh, under the first generation of `userId`'s account, a day long unless `fields` say otherwise. */
export const oneTime = (n: number, purpose: OneTimeTokenPurpose, userId: number | null, fields: Partial<OneTimeToken> = {}): OneTimeToken => ({
  digest: digest(n),
  purpose,
  userId,
  credentialGeneration: userId === null ? null : G0,
  email: null,
  data: null,
  failures: 0,
  createdAt: T0,
  expiresAt: at(DAY),
  ...fields,
});

/** Inserts a user that must not be taken yet. */
export async function addUser(accounts: AccountManager, email = 'ada@example.com', name = 'Ada'): Promise<User> {
  const user = await accounts.signUp({ name, email, passwordHash: PHC, createdAt: T0 });
  if (!user) throw new Error(`${email} was taken`);
  return user;
}

/** Creates the session whose digest is `digest(n)`, under the generation of a new account. */
export async function addSession(accounts: AccountManager, userId: number, n: number, expiresAt: Date): Promise<NewSession> {
  const session = { tokenDigest: digest(n), userId, credentialGeneration: G0, createdAt: T0, expiresAt };
  if (!(await accounts.startSession(session))) throw new Error(`session ${n} of user ${userId} was not created`);
  return session;
}
