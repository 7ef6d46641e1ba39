import { activityEntry } from './activity-entries.ts';
import { Unauthenticated, WrongPassword } from '../errors.ts';
import { NO_PASSWORD, type UserRecord } from '../store.ts';
import { accountKey, countRequest, refundRequest, SESSION_PASSWORD_POLICY, withQuota, type Quota, type Tally } from '../rate-limits.ts';
import { ChangePasswordRequest, parseRequest } from '../schemas.ts';
import { accountNotice } from './account-notices.ts';
import type { UseCaseContext } from './context.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';
import { lostRace, signedIn, type SignedInSession } from './sessions.ts';
import { stepUp } from './totp-codes.ts';

export interface PasswordUseCases {
  /**
   * Sets a new password after checking the current one, and ends every other session of the user
   * (and voids its reset token). Throws Unauthenticated (also when the account's credentials changed
   * while the password was being checked and that change ended this session), AccountChanged (when
   * they changed and this session stands: nothing changed), ValidationError, WrongPassword or
   * RateLimited (the session's own limit on password checks, which a wrong current password counts
   * against).
   */
  changePassword(body: RequestBody, meta: RequestMeta): Promise<Quota>;
}

/**
 * Checks a password the signed-in user gave to confirm a change; answers the account as it was read
 * before the check, its credential generation included, which the change must still find. Counted
 * against the session's own limit first, taken back when right: the login failures of others, which
 * lock the account's logins, never lock its owner out of this, and a stolen session token still
 * cannot be used to guess the password faster than a login could.
 */
export async function confirmPassword(context: UseCaseContext, session: SignedInSession, password: string, tally: Tally): Promise<UserRecord> {
  const { store, hasher, clock } = context.ports;
  const { users, rateLimiter } = store;
  const attempt = await countRequest(rateLimiter, SESSION_PASSWORD_POLICY, accountKey(SESSION_PASSWORD_POLICY, session.digest), context.sessionPasswordRule, clock.now(), tally);
  const record = await users.findById(session.user.id);
  // The user went between the session lookup and now (deleted elsewhere): the session went with it.
  if (!record) throw new Unauthenticated();
  // An account made through an identity provider has no password, and nothing else stands for it:
  // a session's age or a factor verified for it earlier is a property of the session, which a thief
  // who stole it has too (ADR 56). Its owner sets a password through the reset mail first.
  if (record.passwordHash === NO_PASSWORD) throw new WrongPassword(NO_PASSWORD_YET);
  if (!(await hasher.verify(password, record.passwordHash))) throw new WrongPassword();
  await refundRequest(rateLimiter, attempt, clock.now(), tally);
  return record;
}

/** What an account without a password is told where its password is asked for. */
export const NO_PASSWORD_YET = 'The account has no password yet: set one with the link POST /api/password-reset mails to its address, then send it here';

export function passwordUseCases(context: UseCaseContext): PasswordUseCases {
  const { hasher } = context.ports;
  return {
    changePassword: (body: RequestBody, meta: RequestMeta): Promise<Quota> =>
      withQuota(async (tally) => {
        const session = await signedIn(context, meta);
        const input = parseRequest(ChangePasswordRequest, await readBody(body));
        const record = await confirmPassword(context, session, input.currentPassword, tally);
        // With a second factor on: a code in the body, or one verified for this session lately (ADR 0044).
        await stepUp(context, session, input.code, tally);
        const passwordHash = await hasher.hash(input.newPassword);
        // The notice is queued with the change, or not at all (a change that lost its race sends none).
        const ended = await context.manager.changePassword(record.id, record.credentialGeneration, passwordHash, session.digest, await accountNotice(context, 'password-changed', meta, record), activityEntry(context, 'password-changed', meta));
        if (ended === null) throw await lostRace(context, session);
        return {};
      }),
  };
}
