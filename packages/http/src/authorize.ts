import type { User } from '@sl-accounts/service/core';
import type { HttpAnswer } from './http-types.ts';

/** What a host's route asks of the signed-in user, through any adapter's `requireSession(service, options)`. */
export interface AuthorizeOptions {
  /** Only a user whose e-mail address is verified passes; anyone else gets 403. */
  readonly verified?: boolean;
}

/** The user of the request's session, or the answer to send instead (401, 403, 503; never a thrown error). */
export type Authorization = { readonly user: User; readonly answer?: undefined } | { readonly user?: undefined; readonly answer: HttpAnswer };

/** Whether the user's e-mail address is verified (`User.emailVerified`). */
export function isVerified(user: User): boolean {
  return user.emailVerified === true;
}
