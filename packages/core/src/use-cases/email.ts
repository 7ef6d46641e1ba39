/**
 * The account's address and name: the link that proves the address (mailed at signup, again on
 * request), the change of address (a link to the new address, a notice to the old one; the address
 * moves only when the link is confirmed), and the change of name.
 */
import { activityEntry } from './activity-entries.ts';
import { EmailTaken, SignInRequired, Unauthenticated, ValidationError } from '../errors.ts';
import type { EmailConfirmed, EmailLink, EmailTokenPurpose } from '../account-manager.ts';
import type { AccountMail, OutgoingMail } from '../ports.ts';
import type { User } from '../store.ts';
import { accountKey, countRequest, EMAIL_LINK_ACCOUNT_POLICY, PROFILE_SESSION_POLICY, refundRequest, withQuota, type Counted, type Quota, type Tally } from '../rate-limits.ts';
import { EmailChangeRequest, EmailVerificationConfirmRequest, parseRequest, UpdateProfileRequest } from '../schemas.ts';
import type { InboxTicket } from '../inbox.ts';
import { digestToken } from '../system.ts';
import type { UseCaseContext } from './context.ts';
import { accountNotice } from './account-notices.ts';
import { addressNotice } from './address-notices.ts';
import { confirmPassword } from './password.ts';
import { readBody, type RequestBody, type RequestMeta } from './request.ts';
import { lostRace, signedIn, type SignedInSession } from './sessions.ts';
import { stepUp } from './totp-codes.ts';

/** How long a verification or change-of-address link is valid, from its mail. */
export const EMAIL_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

export interface EmailUseCases {
  /**
   * Confirms the token of a mailed link: marks the address of the token's account verified, or,
   * for a change of address, moves the account to the new address (verified), ends every other
   * session of it (all of them when the request carries none of the account's) and mails a notice.
   * Answers the user as it now is. Throws ValidationError (also for an unknown, used, expired or
   * superseded token, or one mailed to an address the account no longer has), EmailTaken (the new
   * address became an account's since the link was mailed) or RateLimited.
   */
  confirmEmail(body: RequestBody, meta: RequestMeta): Promise<{ readonly user: User; readonly purpose: EmailTokenPurpose } & Quota>;
  /**
   * Mails a new verification link to the signed-in user's address (the newest link wins); when the
   * address is verified already, mails nothing (`sent` false). Throws Unauthenticated or RateLimited
   * (per client address, per account, and the address's inbox: then the account's link is not spent).
   */
  resendVerification(meta: RequestMeta): Promise<{ readonly sent: boolean } & Quota>;
  /**
   * Mails a link to `newEmail` that moves the signed-in user's account there, and a notice to the
   * address it has now; nothing changes until the link is confirmed. Throws Unauthenticated,
   * ValidationError (also for the address the account has), WrongPassword, EmailTaken (the address
   * is an account's now) or RateLimited (the account's mailed links, which every request counts,
   * right password or not; the session's password checks, as a password change; the new address's
   * inbox, which has had its share of mail strangers can cause: then the account's link is not spent).
   */
  requestEmailChange(body: RequestBody, meta: RequestMeta): Promise<Quota>;
  /**
   * Sets the signed-in user's name (the signup bounds, trimmed); answers the user. Throws
   * Unauthenticated, ValidationError or RateLimited (the session's own limit on changes of name,
   * which every request counts against).
   */
  updateProfile(body: RequestBody, meta: RequestMeta): Promise<{ readonly user: User } & Quota>;
}

/** A fresh link for `purpose` to `email`: the raw token (for the mail only) and the token as stored. */
function newToken(context: UseCaseContext, purpose: EmailTokenPurpose, email: string, credentialGeneration: number) {
  const token = context.ports.tokens.generate();
  const createdAt = context.ports.clock.now();
  const link = context.verifyUrl();
  link.searchParams.set('token', token);
  return { href: link.href, stored: { digest: digestToken(token), purpose: `${purpose}-email` as const, email, credentialGeneration, data: null, failures: 0, createdAt, expiresAt: new Date(createdAt.getTime() + EMAIL_TOKEN_TTL_MS) } };
}

const hours = EMAIL_TOKEN_TTL_MS / 3_600_000;

/**
 * The verification link of an account at `email`, with its mail (signup passes it to the store's
 * insert): mail to an address nobody proved yet, which the caller has counted against its inbox.
 */
export function verificationLink(context: UseCaseContext, email: string, credentialGeneration: number): EmailLink {
  const { href, stored } = newToken(context, 'verify', email, credentialGeneration);
  const mail: OutgoingMail = {
    kind: 'unverified',
    to: email,
    subject: `Confirm your address for ${context.serviceName}`,
    text: [
      `Please confirm that ${email} is the address of your ${context.serviceName} account.`,
      '',
      `Open this link within ${hours} hours:`,
      '',
      href,
      '',
      'The link works once; a newer link replaces it.',
      `If you did not sign up for ${context.serviceName}, ignore this mail: nothing is sent to this address again unless someone asks.`,
    ].join('\n'),
  };
  return { token: stored, mails: [mail] };
}

/**
 * The link that moves an account to `newEmail` (counted against that inbox by the caller), with its
 * mail and `notice`, the notice to the address the account has (if any).
 */
function changeLink(context: UseCaseContext, oldEmail: string, newEmail: string, credentialGeneration: number, notice: OutgoingMail | null): EmailLink {
  const { href, stored } = newToken(context, 'change', newEmail, credentialGeneration);
  const link: OutgoingMail = {
    kind: 'unverified',
    to: newEmail,
    subject: `Confirm your new address for ${context.serviceName}`,
    text: [
      `Someone (we hope you) asked to move the ${context.serviceName} account of ${oldEmail} to this address, ${newEmail}.`,
      '',
      `To make this the account's address, open this link within ${hours} hours:`,
      '',
      href,
      '',
      'The link works once; a newer link replaces it. Using it signs the account out on every other device.',
      'If you did not ask for this, ignore this mail: the account keeps its address.',
    ].join('\n'),
  };
  return { token: stored, mails: notice ? [link, notice] : [link] };
}

/** A notice as a mail to `to`, queued with the link it goes with. */
function toAddress({ queuedAt: _queuedAt, ...mail }: AccountMail, to: string): OutgoingMail {
  return { ...mail, to };
}

/** At most this many presented session tokens are looked at, as many as the HTTP layer passes on (MAX_SESSION_COOKIES). */
const MAX_PRESENTED_SESSIONS = 16;

/** The digests of the session tokens the request presented, in order (the account's first live one counts for a link). */
function presentedDigests(meta: RequestMeta): readonly string[] {
  const presented = meta.sessionToken;
  const tokens = typeof presented === 'string' ? [presented] : (presented ?? []);
  return tokens.filter((token) => token !== '').slice(0, MAX_PRESENTED_SESSIONS).map(digestToken);
}

export function emailUseCases(context: UseCaseContext): EmailUseCases {
  const { store, clock } = context.ports;
  const { users, rateLimiter } = store;
  const { manager } = context;

  /** Counts a mailed link against the account's limit. */
  const countLink = (userId: number, tally: Tally) =>
    countRequest(rateLimiter, EMAIL_LINK_ACCOUNT_POLICY, accountKey(EMAIL_LINK_ACCOUNT_POLICY, String(userId)), context.emailLinkRule, clock.now(), tally);

  /** Counts a link against the inbox of `email`; past its share, gives the account's `link` back and throws RateLimited. */
  async function requireInbox(email: string, link: Counted, tally: Tally): Promise<InboxTicket> {
    try {
      return await context.inbox.require(email, tally);
    } catch (error) {
      await refundRequest(rateLimiter, link, clock.now(), tally);
      throw error;
    }
  }

  return {
    confirmEmail: (body: RequestBody, meta: RequestMeta) =>
      withQuota(async (tally) => {
        await context.limit('emailVerificationConfirm', meta, tally);
        const input = parseRequest(EmailVerificationConfirmRequest, await readBody(body));
        // The new address was just proven by its link. The old one only if its owner had verified it:
        // told nothing otherwise (the link was read elsewhere; an address nobody proved may be
        // whoever's a signup or a typo named, and no inbox's share can be counted in the move's
        // transaction). It was told, within its share, when the move was asked for.
        const mails = (done: EmailConfirmed): readonly OutgoingMail[] => {
          if (done.purpose !== 'change') return [];
          return [
            done.previousEmailVerified ? addressNotice(context, 'email-changed', meta, { to: done.previousEmail, newEmail: done.user.email }) : null,
            addressNotice(context, 'email-changed', meta, { to: done.user.email, newEmail: done.user.email, toNewAddress: true }),
          ].filter((mail) => mail !== null);
        };
        const done = await manager.confirmEmailLink(
          digestToken(input.token),
          clock.now(),
          presentedDigests(meta),
          mails,
          (done) => activityEntry(context, done.purpose === 'change' ? 'email-changed' : 'email-verified', meta, done.purpose === 'change' ? { previousEmail: done.previousEmail, email: done.user.email } : { email: done.user.email }),
          // A link proves the inbox, not who holds the account: it counts with one of the account's sessions.
          { requireSession: true },
        );
        if (done === 'taken') throw new EmailTaken();
        if (done === 'sign-in-needed') throw new SignInRequired();
        if (!done) throw new ValidationError([{ path: 'token', message: 'is unknown, used or expired' }]);
        return { user: done.user, purpose: done.purpose };
      }),

    resendVerification: (meta: RequestMeta) =>
      withQuota(async (tally) => {
        await context.limit('emailVerification', meta, tally);
        const session = await signedIn(context, meta);
        // The stored row, not the session's (a cache may hold the user as it was before a verification).
        const record = await users.findById(session.user.id);
        if (!record) throw new Unauthenticated();
        if (record.emailVerified) return { sent: false };
        const link = await countLink(record.id, tally);
        // The inbox's share refuses the request, not the account: its link is not spent.
        const ticket = await requireInbox(record.email, link, tally);
        if (!(await manager.requestEmailLink(record.id, verificationLink(context, record.email, record.credentialGeneration)))) {
          await ticket.refund();
          throw new Unauthenticated();
        }
        return { sent: true };
      }),

    requestEmailChange: (body: RequestBody, meta: RequestMeta) =>
      withQuota(async (tally) => {
        const session: SignedInSession = await signedIn(context, meta);
        const input = parseRequest(EmailChangeRequest, await readBody(body));
        // Every request counts against the account's links, before the password is hashed or the
        // address looked up: a taken address answers 409, so an uncounted request would let one
        // account test addresses (and spend a hash on each) without bound.
        const link = await countLink(session.user.id, tally);
        const record = await confirmPassword(context, session, input.password, tally);
        // With a second factor on: a code in the body, or one verified for this session lately (ADR 0044).
        await stepUp(context, session, input.code, tally);
        if (input.newEmail === record.email) throw new ValidationError([{ path: 'newEmail', message: 'is the address the account has' }]);
        // An early answer only: the confirmation decides, by the unique index, whoever took it since.
        if (await users.findByEmail(input.newEmail)) throw new EmailTaken();
        // The new address's inbox, shared with every other account and signup that names it: links
        // other accounts asked for leave room for this one (each account asks 3 an hour at most), and
        // when they used it all, the refusal spends nothing of this account's.
        const ticket = await requireInbox(input.newEmail, link, tally);
        // To the address the account has now, as it reads here (a move since voids this link).
        const notice = await accountNotice(context, 'email-change-requested', meta, record, { newEmail: input.newEmail });
        const toOld = notice && toAddress(notice, record.email);
        // Under the generation the password was checked against: a password changed or reset while
        // it was hashed (by the owner, locking out whoever asked) stores no link and mails nothing.
        if (!(await manager.requestEmailLink(record.id, changeLink(context, record.email, input.newEmail, record.credentialGeneration, toOld), activityEntry(context, 'email-change-requested', meta, { newEmail: input.newEmail }), session.digest))) {
          await ticket.refund();
          throw await lostRace(context, session);
        }
        return {};
      }),

    updateProfile: (body: RequestBody, meta: RequestMeta) =>
      withQuota(async (tally) => {
        const session = await signedIn(context, meta);
        // Counted before the body is read, valid or not, as every limited request is.
        await countRequest(rateLimiter, PROFILE_SESSION_POLICY, accountKey(PROFILE_SESSION_POLICY, session.digest), context.profileRule, clock.now(), tally);
        const input = parseRequest(UpdateProfileRequest, await readBody(body));
        const user = await manager.rename(session.user.id, input.name, activityEntry(context, 'name-changed', meta));
        if (!user) throw new Unauthenticated();
        return { user };
      }),
  };
}
