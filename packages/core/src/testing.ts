/**
 * Fakes and fixtures for tests of the core and of anything built on it (`@sl-accounts/service/core/testing`):
 * not part of the production surface.
 */
import { Pbkdf2PasswordHasher } from './password-hasher.ts';
import type { Clock, Mailer, OutgoingMail, PasswordHasher } from './ports.ts';

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

/** A mail as the mailer got it. */
export type SentMail = OutgoingMail & { readonly messageId: string };

/** A `Mailer` that keeps what it is sent, for a test to read (see `captureMail`). */
export interface CapturedMail extends Mailer {
  /** Every mail sent so far, oldest first. */
  readonly mails: readonly SentMail[];
  /** The newest mail to `to` (any address when omitted); `undefined` when none. */
  last(to?: string): SentMail | undefined;
  /** The first `http(s)://` link in the newest mail to `to`: a verification or reset link. */
  link(to?: string): URL | undefined;
}

/**
 * A mailer that keeps every mail instead of sending it. With `request` of `@sl-accounts/service/http/testing`,
 * which awaits the outbox after each answer, a test reads the mail its request caused at once:
 *
 *   const mailbox = captureMail();
 *   const { api } = await createService({ store: createMemoryStore(), mailer: mailbox });
 *   await request(api, 'POST /api/signup', { json: ada });
 *   const token = mailbox.link(ada.email)?.searchParams.get('token');
 */
export function captureMail(): CapturedMail {
  const mails: SentMail[] = [];
  const last = (to?: string) => mails.findLast((mail) => to === undefined || mail.to === to);
  return {
    mails,
    last,
    link(to) {
      const found = /https?:\/\/\S+/.exec(last(to)?.text ?? '');
      return found ? new URL(found[0]) : undefined;
    },
    async send(mail) {
      mails.push(mail);
    },
  };
}

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
