import type { IssuedDeviceProof } from '../device-proofs.ts';
import { EmailTaken } from '../errors.ts';
import type { User } from '../ports.ts';
import { withQuota, type Quota } from '../rate-limits.ts';
import { parseRequest, SignupRequest } from '../schemas.ts';
import type { UseCaseContext } from './context.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';
import { issueSession, type IssuedSession } from './sessions.ts';

export interface SignedIn {
  readonly user: User;
  readonly session: IssuedSession;
  /** Proof that this client signed in to this account; give it to the client with the session. */
  readonly device: IssuedDeviceProof;
}

export interface SignupUseCases {
  /** Creates an account and signs it in. Throws ValidationError, EmailTaken or RateLimited. */
  signup(body: RequestBody, meta: RequestMeta): Promise<SignedIn & Quota>;
}

export function signupUseCases(context: UseCaseContext): SignupUseCases {
  const { users, hasher, clock } = context.ports;
  return {
    signup: (body: RequestBody, meta: RequestMeta): Promise<SignedIn & Quota> =>
      withQuota(async (tally) => {
        await context.limit('signup', meta, tally);
        const input = parseRequest(SignupRequest, await readBody(body));
        const passwordHash = await hasher.hash(input.password);
        const user = await users.insert({ name: input.name, email: input.email, passwordHash, createdAt: clock.now() });
        if (!user) throw new EmailTaken();
        return { user, session: await issueSession(context, user.id), device: await context.devices.issue(user.email) };
      }),
  };
}
