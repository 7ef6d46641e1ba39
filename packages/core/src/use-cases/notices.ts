/**
 * Security notices: a mail to an account's own address for each event that changes how the account
 * can be reached or used (OWASP's notices on credential changes, and a sign-in from a new device).
 * Each says what happened, when, from which client address and user agent, and what to do if it was
 * not the owner. This module only writes them: each use case hands its notice to the store method
 * that makes the change, which queues it in the outbox in the same transaction (a notice is never
 * lost, and never sent for a change that rolled back). Each event can be turned off.
 */
import { canonicalIp, UNKNOWN_CLIENT } from '../client-ip.ts';
import { headerText } from '../mails.ts';
import type { AccountMail } from '../ports.ts';
import type { RequestMeta } from './request.ts';

/** Every event that has a notice, by the name the options and `SECURITY_NOTICES_OFF` use. */
export const SECURITY_EVENTS = [
  /** The password was changed by a signed-in session. */
  'password-changed',
  /** A password reset was completed (through the mailed link). */
  'password-reset',
  /** A change of address was asked for: sent to the address the account still has. */
  'email-change-requested',
  /** The address changed: sent to the address the account had. */
  'email-changed',
  /** The account was deleted. */
  'account-deleted',
  /** A sign-in from a client that presented no genuine device proof for the account. */
  'new-device-sign-in',
  /** A passkey was added to the account. */
  'passkey-added',
  /** A passkey was removed from the account. */
  'passkey-removed',
  /** A second factor was turned on (TOTP; passkeys name their own). */
  'two-factor-enabled',
  /** A second factor was turned off. */
  'two-factor-disabled',
  /** A recovery code was used to sign in (the notice says how many are left). */
  'recovery-code-used',
  /** New recovery codes replaced the old ones. */
  'recovery-codes-renewed',
  /** An identity at a provider (Google, GitHub, …) was linked: it signs in to the account from now on. */
  'identity-linked',
  /** An identity at a provider was unlinked from the account. */
  'identity-unlinked',
] as const;

/** An event that has a security notice (see `SECURITY_EVENTS`). */
export type SecurityEvent = (typeof SECURITY_EVENTS)[number];

/**
 * Which notices are sent: `false` for an event turns its notice off; an event not named is on.
 * `false` for the whole option turns every notice off.
 */
export type SecurityNoticeOptions = Partial<Readonly<Record<SecurityEvent, boolean>>> | false;

/** Whether `name` is a `SecurityEvent`. */
export function isSecurityEvent(name: string): name is SecurityEvent {
  return (SECURITY_EVENTS as readonly string[]).includes(name);
}

/** What an event's notice may name besides the request: the new address of a change of address. */
export interface NoticeDetails {
  /** The address asked for (`email-change-requested`) or now the account's (`email-changed`). */
  readonly newEmail?: string;
  /** For `email-changed`: the notice goes to the address the account moved to, not the one it left. */
  readonly toNewAddress?: boolean;
  /** The passkey's name (`passkey-added`, `passkey-removed`). */
  readonly passkeyName?: string;
  /** The provider's display name (`identity-linked`, `identity-unlinked`). */
  readonly providerName?: string;
  /** For `recovery-code-used`: how many recovery codes are left. */
  readonly remaining?: number;
}

/** The notices as the use cases write them. */
export interface SecurityNotices {
  /** Whether the event's notice is on. */
  enabled(event: SecurityEvent): boolean;
  /**
   * The event's notice, as of the clock's now and the request's client, or `null` when it is off.
   * It has no recipient: the store queueing it sends it to the account's address as it reads it in
   * the change's transaction (the address the account had, for `email-changed`).
   */
  notice(event: SecurityEvent, meta: Pick<RequestMeta, 'clientIp' | 'userAgent'>, details?: NoticeDetails): AccountMail | null;
}

/** At most this many characters of a user agent go into a notice (browsers send ~150). */
const MAX_USER_AGENT_LENGTH = 300;

/** The lines of each event: its subject (after the service's name) and what happened. */
function describe(event: SecurityEvent, serviceName: string, details: NoticeDetails): { readonly subject: string; readonly what: string } {
  switch (event) {
    case 'password-changed':
      return { subject: 'Your password was changed', what: `The password of your ${serviceName} account was changed. Every other session of the account was signed out.` };
    case 'password-reset':
      return {
        subject: 'Your password was reset',
        what: `The password of your ${serviceName} account was reset through the link mailed to this address. Every session of the account was signed out.`,
      };
    case 'email-change-requested':
      return {
        subject: 'A change of your address was requested',
        what: `Someone signed in to your ${serviceName} account asked to move it to the address ${details.newEmail ?? '(not given)'}. It moves only when the link mailed there is followed; until then this address stays the account's.`,
      };
    case 'email-changed':
      return {
        subject: 'Your address was changed',
        what: details.toNewAddress
          ? `The address of your ${serviceName} account is now this one, ${details.newEmail ?? '(not given)'}: the link mailed here was followed. Every other session of the account was signed out.`
          : `The address of your ${serviceName} account was changed to ${details.newEmail ?? '(not given)'}. This address no longer signs in to it, and its mails go to the new address.`,
      };
    case 'account-deleted':
      return { subject: 'Your account was deleted', what: `Your ${serviceName} account was deleted, with all its sessions. This is the last mail it sends you.` };
    case 'two-factor-enabled':
      return { subject: 'Two-factor authentication was turned on', what: `An authenticator app now guards your ${serviceName} account: signing in takes its code after the password. Every other session of the account was signed out.` };
    case 'two-factor-disabled':
      return { subject: 'Two-factor authentication was turned off', what: `The authenticator app no longer guards your ${serviceName} account: the password alone signs in. Every other session of the account was signed out.` };
    case 'recovery-code-used':
      return {
        subject: 'A recovery code was used',
        what: `Someone signed in to your ${serviceName} account with one of its recovery codes instead of the authenticator app's code. ${details.remaining ?? 0} recovery code(s) are left; each works once.`,
      };
    case 'identity-linked':
      return {
        subject: 'A sign-in was linked to your account',
        what: `Your ${serviceName} account can now be signed in to through ${details.providerName ?? 'an identity provider'}. Every other session of the account was signed out.`,
      };
    case 'identity-unlinked':
      return { subject: 'A sign-in was unlinked from your account', what: `${details.providerName ?? 'An identity provider'} no longer signs in to your ${serviceName} account. Every other session of the account was signed out.` };
    case 'recovery-codes-renewed':
      return { subject: 'New recovery codes', what: `New recovery codes were made for your ${serviceName} account; the old ones no longer work.` };
    case 'new-device-sign-in':
      return {
        subject: 'New sign-in to your account',
        what: `Someone signed in to your ${serviceName} account from a browser or device that had not signed in to it before (or whose record of it expired or was cleared).`,
      };
    case 'passkey-added':
      return {
        subject: 'A passkey was added to your account',
        what: `A passkey named "${headerText(details.passkeyName ?? '')}" was added to your ${serviceName} account: it signs in without the password. Every other session of the account was signed out.`,
      };
    case 'passkey-removed':
      return {
        subject: 'A passkey was removed from your account',
        what: `The passkey named "${headerText(details.passkeyName ?? '')}" was removed from your ${serviceName} account: it no longer signs in. Every other session of the account was signed out.`,
      };
  }
}

/** What the owner should do when they did not do it. */
function advice(event: SecurityEvent, resetPage: string, details: NoticeDetails): string {
  if (event === 'account-deleted') {
    return 'Whoever did this knew your password: if you use it anywhere else, change it there. The account and its data cannot be restored; you may sign up again with this address.';
  }
  if (event === 'email-changed' && !details.toNewAddress) {
    // A reset mailed here no longer reaches the account: only the site's operator can help now.
    return "If this was not you, someone who knew your password took the account: a password reset from this address no longer reaches it. Tell the site's operator at once, quoting this mail.";
  }
  const reset = `If this was not you, someone may know your password. Reset it at once through the site's password reset, which signs out every session`;
  // A reset moves the credential generation on, which the pending link needs unchanged.
  if (event === 'email-change-requested') return `${reset} and cancels the change of address:\n\n${resetPage}`;
  return `${reset}:\n\n${resetPage}`;
}

/**
 * The notices of a service named `serviceName`; the advice links to `resetUrl` (configured, never a
 * request's Host). `now` is the clock's.
 */
export function securityNotices(options: {
  readonly serviceName: string;
  readonly resetUrl: () => URL;
  readonly now: () => Date;
  readonly enabled?: SecurityNoticeOptions | undefined;
}): SecurityNotices {
  const { serviceName, resetUrl, now } = options;
  const settings = options.enabled;
  const enabled = (event: SecurityEvent) => settings !== false && settings?.[event] !== false;
  // The page as configured (a query it has, such as a language, stays); no token, unlike a reset mail's link.
  const resetPage = () => resetUrl().href;
  return {
    enabled,
    notice(event, meta, details = {}) {
      if (!enabled(event)) return null;
      const { subject, what } = describe(event, serviceName, details);
      const at = now();
      // One line, no control characters or reordering marks, bounded: the client chose this text.
      const userAgent = headerText(meta.userAgent ?? '').slice(0, MAX_USER_AGENT_LENGTH);
      return {
        kind: 'security',
        queuedAt: at,
        subject: `[${headerText(serviceName)}] ${subject}`,
        text: [
          what,
          '',
          `When:        ${at.toISOString()}`,
          `IP address:  ${canonicalIp(meta.clientIp) ?? UNKNOWN_CLIENT}`,
          `User agent:  ${userAgent === '' ? '(none sent)' : userAgent}`,
          '',
          advice(event, resetPage(), details),
          '',
          `This is an automatic security notice from ${serviceName}.`,
          '',
        ].join('\n'),
      };
    },
  };
}
