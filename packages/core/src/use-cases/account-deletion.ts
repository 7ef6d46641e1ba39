import { Unauthenticated } from '../errors.ts';
import { withQuota, type Quota } from '../rate-limits.ts';
import { DeleteAccountRequest, parseRequest } from '../schemas.ts';
import type { UseCaseContext } from './context.ts';
import { confirmPassword } from './password.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';
import { forget, signedIn } from './sessions.ts';

export interface AccountDeletionUseCases {
  /**
   * Deletes the presented session's user, their sessions and reset token, after checking the
   * password. Throws Unauthenticated, ValidationError, WrongPassword or RateLimited (as changePassword).
   */
  deleteAccount(body: RequestBody, meta: RequestMeta): Promise<Quota>;
}

export function accountDeletionUseCases(context: UseCaseContext): AccountDeletionUseCases {
  const { users } = context.ports;
  return {
    deleteAccount: (body: RequestBody, meta: RequestMeta): Promise<Quota> =>
      withQuota(async (tally) => {
        const { user } = await signedIn(context, meta);
        const input = parseRequest(DeleteAccountRequest, await readBody(body));
        await confirmPassword(context, user.id, input.password, tally);
        const ended = await users.delete(user.id);
        if (ended === null) throw new Unauthenticated();
        forget(context, ended);
        return {};
      }),
  };
}
