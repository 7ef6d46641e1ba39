/**
 * The last steps of a sign-in that proves itself without a password (a passkey): the same as a
 * login's (login.ts), written here so the passkey's sign-in reuses them without reaching into the
 * login's closure: the presented sessions end, the new-device notice goes with the session when the
 * client has no genuine device proof for the account, a fresh proof comes with it.
 */
import { InvalidCredentials } from '../errors.ts';
import { accountKey, NEW_DEVICE_NOTICE_POLICY } from '../rate-limits.ts';
import type { User, UserRecord } from '../store.ts';
import { digestToken } from '../system.ts';
import { accountNotice } from './account-notices.ts';
import type { UseCaseContext } from './context.ts';
import type { RequestMeta } from './request.ts';
import { issueSession } from './sessions.ts';
import type { SignedIn } from './signup.ts';

/**
 * The new-device notice of a sign-in whose credential was right, while the account's bound on them
 * (`newDeviceNoticeRule`) has room: as a login's (the same limiter key, so both count against one bound).
 */
export async function newDeviceNotice(context: UseCaseContext, record: UserRecord, meta: RequestMeta) {
  const { notices, newDeviceNoticeRule } = context;
  const { store, clock } = context.ports;
  if (!notices.enabled('new-device-sign-in')) return null;
  if (newDeviceNoticeRule) {
    const hit = await store.rateLimiter.consume(accountKey(NEW_DEVICE_NOTICE_POLICY, String(record.id)), newDeviceNoticeRule, clock.now());
    if (!hit.allowed) return null;
  }
  return accountNotice(context, 'new-device-sign-in', meta, record);
}

/** Ends every presented session, not only the first (one planted under a longer path would outlive the sign-in). */
export async function endPresentedSessions(context: UseCaseContext, meta: RequestMeta): Promise<void> {
  const { sessions } = context.ports.store;
  const presented = meta.sessionToken;
  if (typeof presented === 'string') await sessions.delete(digestToken(presented));
  else if (presented) for (const token of presented) await sessions.delete(digestToken(token));
}

/**
 * A sign-in's session once its credential was checked against `record` read at `generation`: stored
 * under that generation with the new-device notice when `device` is `null`, with a fresh device
 * proof. `failure()` (InvalidCredentials by default) when the account's credentials changed
 * meanwhile: then nothing is stored.
 */
export async function startSignedIn(context: UseCaseContext, record: UserRecord, generation: number, device: string | null, meta: RequestMeta, failure: () => Error = () => new InvalidCredentials()): Promise<SignedIn> {
  const notice = device ? null : await newDeviceNotice(context, record, meta);
  const session = await issueSession(context, record.id, generation, notice);
  if (!session) throw failure();
  const user: User = { id: record.id, name: record.name, email: record.email, emailVerified: record.emailVerified };
  return { user, session, device: await context.devices.issue(user.id) };
}

/** Whether a sign-in checks the presented device proofs: for the login limit, or for the new-device notice. */
export function checksDevices(context: UseCaseContext): boolean {
  return context.accountRule !== null || context.notices.enabled('new-device-sign-in');
}
