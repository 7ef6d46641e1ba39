import { activityEntry } from './activity-entries.ts';
import { withQuota, type Quota } from '../rate-limits.ts';
import { DeleteAccountRequest, parseRequest } from '../schemas.ts';
import { accountNotice } from './account-notices.ts';
import type { UseCaseContext } from './context.ts';
import { confirmPassword } from './password.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';
import { lostRace, signedIn } from './sessions.ts';
import { stepUp } from './totp-codes.ts';

export interface AccountDeletionUseCases {
  /**
   * Deletes the presented session's user, their sessions and reset token, after checking the
   * password. Throws Unauthenticated, AccountChanged (as changePassword), ValidationError,
   * WrongPassword or RateLimited.
   */
  deleteAccount(body: RequestBody, meta: RequestMeta): Promise<Quota>;
}

export function accountDeletionUseCases(context: UseCaseContext): AccountDeletionUseCases {
  return {
    deleteAccount: (body: RequestBody, meta: RequestMeta): Promise<Quota> =>
      withQuota(async (tally) => {
        const session = await signedIn(context, meta);
        const input = parseRequest(DeleteAccountRequest, await readBody(body));
        const record = await confirmPassword(context, session, input.password, tally);
        // With a second factor on: a code in the body, or one verified for this session lately (ADR 0044).
        await stepUp(context, session, input.code, tally);
        // The notice is queued in the deletion's transaction, to the address the account had: it goes
        // although the account is gone, and never for a deletion that did not happen.
        const ended = await context.manager.deleteAccount(record.id, record.credentialGeneration, await accountNotice(context, 'account-deleted', meta, record), activityEntry(context, 'account-deleted', meta), session.digest);
        if (ended === null) throw await lostRace(context, session);
        return {};
      }),
  };
}
