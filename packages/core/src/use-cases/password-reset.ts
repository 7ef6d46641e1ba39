import { activityEntry } from './activity-entries.ts';
import { ValidationError } from '../errors.ts';
import type { IssuedDeviceProof } from '../device-proofs.ts';
import type { OutgoingMail } from '../ports.ts';
import { ACCOUNT_LOGIN_POLICY, accountKey, withQuota, type Quota, type Tally } from '../rate-limits.ts';
import { parseRequest, PasswordResetConfirmRequest, PasswordResetRequest } from '../schemas.ts';
import { digestToken } from '../system.ts';
import type { UseCaseContext } from './context.ts';
import { secondFactorKeys } from './second-factor.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';

/** How long a password reset token is valid, from its request. */
export const RESET_TOKEN_TTL_MS = 30 * 60 * 1000;

export interface PasswordResetUseCases {
  /**
   * Starts a reset: when the address is registered, a token replaces the account's previous one and
   * a mail with the link is enqueued with it. Answers alike, and as fast, either way: the store
   * work happens after the answer (see `settled`). Throws ValidationError or RateLimited.
   */
  requestPasswordReset(body: RequestBody, meta: RequestMeta): Promise<Quota>;
  /**
   * Uses a reset token: sets the password, ends every session of its user, clears the account's
   * failed logins and answers a device proof for the client, which proved itself the owner. Throws
   * ValidationError (also for an unknown, used, expired or superseded token: every change of
   * credential voids it) or RateLimited.
   */
  confirmPasswordReset(body: RequestBody, meta: RequestMeta): Promise<{ readonly device: IssuedDeviceProof } & Quota>;
  /** Resolves when the work started after earlier answers (reset requests) has finished. */
  settled(): Promise<void>;
}

/**
 * `perClientLimit: false` is the operator's (admin.ts): an authenticated operator's request does not
 * spend, nor wait on, the public per-client budget of its address; the per-inbox bound still holds.
 */
export function passwordResetUseCases(context: UseCaseContext, { perClientLimit = true }: { readonly perClientLimit?: boolean } = {}): PasswordResetUseCases {
  const { store, hasher, clock, tokens } = context.ports;
  const { rateLimiter } = store;
  const { serviceName, resetUrl, resetLinks, operatorResetLinks, onBackgroundError, devices } = context;
  /** Work started after an answer, so `settled` can wait for it. */
  const background = new Set<Promise<void>>();

  function resetMail(to: string, token: string): OutgoingMail {
    const link = resetUrl();
    link.searchParams.set('token', token);
    return {
      to,
      subject: `Reset your ${serviceName} password`,
      text: [
        `Someone (we hope you) asked to reset the password of the ${serviceName} account of ${to}.`,
        '',
        `To choose a new password, open this link within ${RESET_TOKEN_TTL_MS / 60_000} minutes:`,
        '',
        link.href,
        '',
        'The link works once. Using it signs you out everywhere.',
        'If you did not ask for this, ignore this mail: your password stays as it is.',
      ].join('\n'),
    };
  }

  /** A reset request's steps, inside `withQuota`. */
  async function requestPasswordReset(body: RequestBody, meta: RequestMeta, tally: Tally): Promise<object> {
    if (perClientLimit) await context.limit('passwordReset', meta, tally);
    const input = parseRequest(PasswordResetRequest, await readBody(body));
    // Per inbox, registered or not, so the answer (a refusal included) says nothing about registration,
    // and `ada+1@` and `ada+2@` cannot double what one inbox receives. Not in the inbox's share of
    // other mail (INBOX_LIMIT): nothing else strangers can cause stands in the way of a reset. A
    // refusal leaves the owner a working link: the slots are as long as a token lives.
    // The operator's (no per-client limit) on slots of its own, which strangers' requests do not take.
    await (perClientLimit ? resetLinks : operatorResetLinks).require(input.email, tally);
    const token = tokens.generate();
    const createdAt = clock.now();
    const reset = { tokenDigest: digestToken(token), createdAt, expiresAt: new Date(createdAt.getTime() + RESET_TOKEN_TTL_MS) };
    // After the answer: a known address costs a write and a mail the unknown one does not, and
    // an answer that waited for them would tell the two apart by its time (test/bench/reset-timing.ts
    // measures both).
    const work = context.manager.requestReset(input.email, reset, resetMail(input.email, token)).then(
      () => {},
      (error: unknown) => onBackgroundError(error),
    );
    background.add(work);
    void work.finally(() => background.delete(work));
    return {};
  }

  return {
    requestPasswordReset: (body: RequestBody, meta: RequestMeta): Promise<Quota> => withQuota((tally) => requestPasswordReset(body, meta, tally)),

    confirmPasswordReset: (body: RequestBody, meta: RequestMeta): Promise<{ readonly device: IssuedDeviceProof } & Quota> =>
      withQuota(async (tally) => {
        await context.limit('passwordResetConfirm', meta, tally);
        const input = parseRequest(PasswordResetConfirmRequest, await readBody(body));
        const passwordHash = await hasher.hash(input.newPassword);
        // The notice goes to the account's address only if the token was good: it is queued with the change.
        const done = await context.manager.completeReset(digestToken(input.token), clock.now(), passwordHash, context.notices.notice('password-reset', meta), activityEntry(context, 'password-reset', meta), { claimUnverified: true });
        if (!done) throw new ValidationError([{ path: 'token', message: 'is unknown, used or expired' }]);
        // The owner proved themselves through the mailbox: the failures others counted against the
        // account (guesses at the old password, and the wrong second-factor answers of whoever had
        // it, which the new password's generation shuts out) go, and this client gets a device
        // proof, so it signs in even while others lock the account again.
        await rateLimiter.clear(accountKey(ACCOUNT_LOGIN_POLICY, done.email));
        for (const key of secondFactorKeys(done.userId)) await rateLimiter.clear(key);
        return { device: await devices.issue(done.userId) };
      }),

    async settled(): Promise<void> {
      while (background.size > 0) await Promise.all(background);
    },
  };
}
