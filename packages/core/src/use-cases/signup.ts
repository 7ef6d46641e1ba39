import { activityEntry } from './activity-entries.ts';
import { EmailTaken } from '../errors.ts';
import { FIRST_CREDENTIAL_GENERATION } from '../store.ts';
import { withQuota, type Quota } from '../rate-limits.ts';
import { parseRequest, SignupRequest } from '../schemas.ts';
import type { UseCaseContext } from './context.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';
import { verificationLink } from './email.ts';
import { endSignIn, type SignedIn } from './login-flow.ts';

export interface SignupUseCases {
  /**
   * Creates an account and signs it in; a link that verifies its address is mailed through the
   * outbox, written with the account, unless the address's inbox has had its share of mail that
   * anyone can cause (then the account is made all the same, and a link can be asked for later).
   * Throws ValidationError, EmailTaken or RateLimited.
   */
  signup(body: RequestBody, meta: RequestMeta): Promise<SignedIn & Quota>;
}

export function signupUseCases(context: UseCaseContext): SignupUseCases {
  const { hasher, clock } = context.ports;
  return {
    signup: (body: RequestBody, meta: RequestMeta): Promise<SignedIn & Quota> =>
      withQuota(async (tally) => {
        await context.limit('signup', meta, tally);
        const input = parseRequest(SignupRequest, await readBody(body));
        const passwordHash = await hasher.hash(input.password);
        // Anyone may sign up with any address: its link is mail a stranger can cause, within the
        // inbox's share. Past it the answer is the same 201 (it tells nothing of the inbox), only
        // without the mail; a taken address mails nothing, so its count is given back.
        const ticket = await context.inbox.take(input.email);
        const user = await context.manager.signUp({ name: input.name, email: input.email, passwordHash, createdAt: clock.now() }, ticket ? verificationLink(context, input.email, FIRST_CREDENTIAL_GENERATION) : undefined, activityEntry(context, 'account-created', meta));
        if (!user) {
          await ticket?.refund();
          throw new EmailTaken();
        }
        // Signed in as every sign-in ends (login-flow.ts), under the new account's first generation: only
        // someone who knows the password (or reads its mailbox) can have moved it on, or deleted the
        // account, since the insert. Its client made the account (no new-device notice), and a session
        // it holds for another account is not this sign-in's to end.
        return endSignIn(context, { account: user, generation: FIRST_CREDENTIAL_GENERATION, newDevice: false, method: 'signup' }, { ...meta, sessionToken: null });
      }),
  };
}
