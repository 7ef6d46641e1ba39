/**
 * The notices of a confirmed change of address, through the notices module (notices.ts: its format,
 * its switches): "address changed" to both addresses, each proven (the new one by the link just
 * followed, the old one only when its owner had verified it). Unlike the other notices, these name
 * their recipient here: the store does not write them to the address it reads. ("Address change
 * requested" is an account's notice like the others: account-notices.ts.)
 */
import type { OutgoingMail } from '../ports.ts';
import type { UseCaseContext } from './context.ts';
import type { RequestMeta } from './request.ts';

/** The event of a confirmed change of address. */
export type AddressEvent = 'email-changed';

/** Who a notice goes to, and the address the account moves (or moved) to. */
export interface AddressNoticeDetails {
  readonly to: string;
  readonly newEmail: string;
  /** The `email-changed` notice to the new address (the module's own text is for the address the account had). */
  readonly toNewAddress?: boolean;
}

/** The notice of `event` to `details.to`, or `null` when notices of the event are off. */
export function addressNotice(context: UseCaseContext, event: AddressEvent, meta: Pick<RequestMeta, 'clientIp' | 'userAgent'>, details: AddressNoticeDetails): OutgoingMail | null {
  const notice = context.notices.notice(event, meta, { newEmail: details.newEmail, ...(details.toNewAddress ? { toNewAddress: true } : {}) });
  if (!notice) return null;
  const { queuedAt: _queuedAt, ...mail } = notice;
  return { ...mail, to: details.to };
}
