/**
 * Events as the use cases describe them (docs/decisions/0057-activity-log.md): the request's client
 * (canonical address, user agent) and the time, with what else is worth knowing. Never a token, a
 * code, a secret or a password: `details` holds kinds, counts, names the owner gave, reasons.
 */
import type { ActivityDetail, ActivityEntry, ActivityType } from '../activity.ts';
import { canonicalIp } from '../client-ip.ts';
import type { UseCaseContext } from './context.ts';
import type { RequestMeta } from './request.ts';

/** The longest user agent an event keeps (a client can send any length). */
const USER_AGENT_LIMIT = 512;

/** An event of `type` caused by the request `meta` (or by none: `null`), now. */
export function activityEntry(
  context: UseCaseContext,
  type: ActivityType,
  meta: Partial<Pick<RequestMeta, 'clientIp' | 'userAgent'>> | null,
  details: Readonly<Record<string, ActivityDetail>> = {},
  actor: string | null = null,
): ActivityEntry {
  const clientIp = meta?.clientIp ? (canonicalIp(meta.clientIp) ?? null) : null;
  const userAgent = meta?.userAgent ? meta.userAgent.slice(0, USER_AGENT_LIMIT) : null;
  return { type, at: context.ports.clock.now(), clientIp, userAgent, actor, details };
}
