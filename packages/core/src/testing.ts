/**
 * Fakes and fixtures for tests of the core and of anything built on it (`@sl-accounts/core/testing`):
 * not part of the production surface.
 */
import { Pbkdf2PasswordHasher } from './password-hasher.ts';
import type { Clock, PasswordHasher } from './ports.ts';

/** A clock that moves only when told to. */
export class ManualClock implements Clock {
  #t: number;

  constructor(start: Date | string = '2026-01-01T00:00:00Z') {
    this.#t = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#t);
  }

  advance(ms: number): void {
    this.#t += ms;
  }
}

/**
 * PBKDF2-SHA256 at one iteration: the production hasher, its PHC format and its checks, at no cost.
 * For tests only; `createAccounts` and `createService` default to 600,000 iterations.
 */
export const testHasher: PasswordHasher = new Pbkdf2PasswordHasher({ iterations: 1 });

export { contactMail } from './mails.ts';
export { messageIdOf, retryDelayMs } from './mail-worker.ts';

/**
 * A login's result when it signed in at once (an account without a second factor), typed so;
 * throws when the login asked for a second factor instead.
 */
export function signedInAtOnce<T extends object>(result: T): Extract<T, { readonly session: unknown }> {
  if (!('session' in result)) throw new Error('the login asked for a second factor');
  return result as Extract<T, { readonly session: unknown }>;
}
