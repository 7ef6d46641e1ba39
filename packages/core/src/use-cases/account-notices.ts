/**
 * Whose mail a notice about an account is (docs/decisions/0033-inbox-bound.md). An account whose
 * owner proved its address (verified) gets its notices as the owner's mail: `security`, never
 * counted against the inbox, so no stranger can use up what the owner is told. An account whose
 * address nobody proved may be anyone's (a signup proves nothing), so its notices are mail a
 * stranger can cause to that inbox: `unverified`, counted against it, and left out past the bound,
 * while the change they report goes ahead.
 */
import type { AccountMail } from '../ports.ts';
import type { User } from '../store.ts';
import type { UseCaseContext } from './context.ts';
import type { NoticeDetails, SecurityEvent } from './notices.ts';
import type { RequestMeta } from './request.ts';

/** The notice of `event` about `account` (as read before the change), or `null`: notices of the event are off, or an unverified address had its share. */
export async function accountNotice(
  context: UseCaseContext,
  event: SecurityEvent,
  meta: Pick<RequestMeta, 'clientIp' | 'userAgent'>,
  account: Pick<User, 'email' | 'emailVerified'>,
  details?: NoticeDetails,
): Promise<AccountMail | null> {
  const notice = context.notices.notice(event, meta, details);
  if (!notice) return null;
  if (account.emailVerified) return notice;
  return (await context.inbox.take(account.email)) ? { ...notice, kind: 'unverified' } : null;
}
