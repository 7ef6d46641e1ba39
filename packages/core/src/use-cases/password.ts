import { Unauthenticated, WrongPassword } from '../errors.ts';
import type { UserRecord } from '../ports.ts';
import { ACCOUNT_LOGIN_POLICY, accountKey, countRequest, refundRequest, withQuota, type Quota, type Tally } from '../rate-limits.ts';
import { ChangePasswordRequest, parseRequest } from '../schemas.ts';
import type { UseCaseContext } from './context.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';
import { forget, signedIn } from './sessions.ts';

export interface PasswordUseCases {
  /**
   * Sets a new password after checking the current one, and ends every other session of the user.
   * Throws Unauthenticated, ValidationError, WrongPassword or RateLimited (the per-account limit
   * on failed logins, which a wrong current password counts against).
   */
  changePassword(body: RequestBody, meta: RequestMeta): Promise<Quota>;
}

/**
 * Checks a password the signed-in user gave to confirm a change. It is a login attempt on the
 * account: counted against the per-account limit first, taken back when right, so a stolen
 * session token cannot be used to guess the password faster than a login could.
 */
export async function confirmPassword(context: UseCaseContext, userId: number, password: string, tally: Tally): Promise<UserRecord> {
  const { users, rateLimiter, hasher, clock } = context.ports;
  const { accountRule } = context;
  const record = await users.findById(userId);
  // The user went between the session lookup and now (deleted elsewhere): the session went with it.
  if (!record) throw new Unauthenticated();
  const attempt = accountRule
    ? await countRequest(rateLimiter, ACCOUNT_LOGIN_POLICY, accountKey(ACCOUNT_LOGIN_POLICY, record.email), accountRule, clock.now(), tally)
    : null;
  if (!(await hasher.verify(password, record.passwordHash))) throw new WrongPassword();
  if (attempt) await refundRequest(rateLimiter, attempt, clock.now(), tally);
  return record;
}

export function passwordUseCases(context: UseCaseContext): PasswordUseCases {
  const { users, hasher } = context.ports;
  return {
    changePassword: (body: RequestBody, meta: RequestMeta): Promise<Quota> =>
      withQuota(async (tally) => {
        const { user, digest } = await signedIn(context, meta);
        const input = parseRequest(ChangePasswordRequest, await readBody(body));
        await confirmPassword(context, user.id, input.currentPassword, tally);
        const ended = await users.changePassword(user.id, await hasher.hash(input.newPassword), digest);
        if (ended === null) throw new Unauthenticated();
        forget(context, ended);
        return {};
      }),
  };
}
