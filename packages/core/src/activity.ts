/**
 * The activity log (issue 43, docs/decisions/0057-activity-log.md): every security event of an
 * account, written by the account manager in the same unit of work as the change it records, so no
 * event outlives a change that rolled back and no change commits without its event. Failed sign-ins
 * are summarised: one row per account and hour, whose `count` grows. Tokens, codes, secrets and
 * passwords never go into an event: `details` holds only what the use case chose to say.
 */

/** What happened. An open list: a type added later is one more string here. */
export const ACTIVITY_TYPES = [
  'account-created',
  'signed-in',
  'sign-in-failed',
  'password-changed',
  'password-reset',
  'password-reset-sent',
  'email-change-requested',
  'email-changed',
  'email-verified',
  'name-changed',
  'factor-added',
  'factor-removed',
  'identity-linked',
  'identity-unlinked',
  'recovery-code-used',
  'recovery-codes-renewed',
  'sessions-ended',
  'account-locked',
  'account-unlocked',
  'account-deleted',
  'account-exported',
] as const;

export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** Whether `value` names an activity type. */
export const isActivityType = (value: unknown): value is ActivityType => typeof value === 'string' && (ACTIVITY_TYPES as readonly string[]).includes(value);

/** A detail's value: plain, never a secret. */
export type ActivityDetail = string | number | boolean | null;

/** An event as a use case describes it; the account manager adds the account it happened to. */
export interface ActivityEntry {
  readonly type: ActivityType;
  readonly at: Date;
  /** The canonical client address of the request, when a request caused it. */
  readonly clientIp: string | null;
  readonly userAgent: string | null;
  /** The operator's name (an `ADMIN_TOKENS` name, or `cli`), for an operator's action; `null` for the owner's own. */
  readonly actor: string | null;
  /** What else is worth knowing: the sign-in's method, whether the device was new, the operator's reason. */
  readonly details: Readonly<Record<string, ActivityDetail>>;
}

/** An event to store. */
export interface NewActivity extends ActivityEntry {
  /** The account; kept after the account is deleted (the operator's record of the deletion). */
  readonly userId: number | null;
}

/** A stored event. */
export interface ActivityEvent extends NewActivity {
  /** Assigned by the store, increasing: newer events have greater ids (the cursor). */
  readonly id: number;
  /** How many times it happened: 1, or a summary's count (failed sign-ins in one hour). */
  readonly count: number;
}

/** Which events `ActivityRepository.list` answers. */
export interface ActivityQuery {
  /** Only events of this account. */
  readonly userId?: number | null;
  /** Only events of this type. */
  readonly type?: ActivityType | null;
  /** Only events older than this one (its id): the cursor of the next page. */
  readonly before?: number | null;
  /** At most this many, newest first. */
  readonly limit: number;
}

/** The activity log. Events are never changed, but a summary's count; the sweep deletes old ones. */
export interface ActivityRepository {
  /** Stores the event. */
  append(event: NewActivity): Promise<void>;
  /**
   * Counts one more event of `event.type` for `event.userId` under `summary` (a key naming the
   * account and the hour): the first stores the event with count 1, each later one adds 1 to its
   * count, in one atomic step (concurrent counts all count).
   */
  count(event: NewActivity, summary: string): Promise<void>;
  /** Events newest first (by id), as `query` filters them. */
  list(query: ActivityQuery): Promise<readonly ActivityEvent[]>;
  /** Deletes the events from before `cutoff` (by `at`); answers how many. */
  deleteBefore(cutoff: Date): Promise<number>;
}

/** How long events are kept by default: 90 days (`ACTIVITY_RETENTION_DAYS`). */
export const DEFAULT_ACTIVITY_RETENTION_DAYS = 90;

/** Events per page of a listing. */
export const ACTIVITY_PAGE_SIZE = 50;

/** The summary key of failed sign-ins of one account (`null`: at addresses that are nobody's) in the hour of `at`. */
export const failureSummary = (userId: number | null, at: Date): string => `sign-in-failed:${userId ?? 'unknown'}:${new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000).toISOString()}`;

/**
 * The summary key of one account's exports by its owner from one client address in the hour of `at`:
 * a session replaying `GET /api/me/export` grows one row's count, not the log, while an export from
 * another address is still an event of its own.
 */
export const exportSummary = (userId: number, clientIp: string | null, at: Date): string =>
  `account-exported:${userId}:${new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000).toISOString()}:${clientIp ?? ''}`;
