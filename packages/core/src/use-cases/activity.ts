/**
 * The owner's record (issue 43): their activity, newest first and paged, and the export of
 * everything stored about them. The views here are shared with the operator's use cases (admin.ts).
 */
import { ACTIVITY_PAGE_SIZE, exportSummary, type ActivityDetail, type ActivityEvent, type ActivityType } from '../activity.ts';
import { NotFound, Unauthenticated, ValidationError } from '../errors.ts';
import type { UserRecord } from '../store.ts';
import { activityEntry } from './activity-entries.ts';
import type { UseCaseContext } from './context.ts';
import type { RequestMeta, SessionMeta } from './request.ts';
import { requireStepUp } from './second-factor.ts';
import { signedIn } from './sessions.ts';

/** An event as the API shows it. */
export interface ActivityView {
  /** The event's id: also the cursor that pages past it. */
  readonly id: string;
  readonly type: ActivityType;
  readonly at: string;
  /** 1, or how many failed sign-ins (or the owner's exports from one address) the hour's summary counts. */
  readonly count: number;
  readonly clientIp: string | null;
  readonly userAgent: string | null;
  /**
   * Who acted: `null` for the owner (or a client on their account), an operator's name for the
   * operator's API, `operator` in the owner's own view (the operator's own name stays with the site).
   */
  readonly actor: string | null;
  readonly details: Readonly<Record<string, ActivityDetail>>;
}

/** A page of events: `nextCursor` asks for the older ones, `null` at the end. */
export interface ActivityPage {
  readonly events: readonly ActivityView[];
  readonly nextCursor: string | null;
}

/** The profile as an export or the operator sees it. */
export interface AccountProfile {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly emailVerified: boolean;
  readonly locked: boolean;
}

/** Everything stored about one person (documented field by field in docs/api.md). */
export interface AccountExport {
  readonly exportedAt: string;
  readonly profile: AccountProfile;
  /** Live sessions, without tokens or digests. */
  readonly sessions: readonly { readonly id: string; readonly createdAt: string; readonly expiresAt: string }[];
  /** Second factors, metadata only: never a secret or a code. */
  readonly secondFactors: {
    readonly totp: { readonly enabled: boolean; readonly createdAt: string } | null;
    readonly recoveryCodesLeft: number;
  };
  readonly passkeys: readonly { readonly id: string; readonly name: string; readonly createdAt: string; readonly lastUsedAt: string | null; readonly transports: readonly string[] }[];
  /** Links mailed and not yet used, metadata only (never a token): a verification or change of address, a password reset. */
  readonly pendingLinks: {
    readonly emailLink: { readonly purpose: 'verify' | 'change'; readonly email: string; readonly createdAt: string; readonly expiresAt: string } | null;
    readonly passwordReset: { readonly createdAt: string; readonly expiresAt: string } | null;
  };
  /** The identities linked at providers (issue 42). */
  readonly identities: readonly { readonly provider: string; readonly subject: string; readonly email: string | null; readonly linkedAt: string }[];
  /** The account's events, newest first (up to EXPORT_ACTIVITY_LIMIT). */
  readonly activity: readonly ActivityView[];
  /** Contact messages sent from the account's address. */
  readonly contactMessages: readonly { readonly name: string; readonly email: string; readonly message: string; readonly clientIp: string; readonly userAgent: string | null; readonly receivedAt: string }[];
}

/** Most events and contact messages one export carries. */
export const EXPORT_ACTIVITY_LIMIT = 10_000;

/** The owner's record. */
export interface ActivityUseCases {
  /** The presented session's account's events, newest first; `cursor` from the page before. Throws Unauthenticated, ValidationError. */
  myActivity(cursor: string | null | undefined, meta: SessionMeta): Promise<ActivityPage>;
  /**
   * Everything stored about the presented session's account. With a second factor on, the session
   * needs a step-up within the window (SecondFactorRequired). Throws Unauthenticated.
   */
  exportMyAccount(meta: RequestMeta): Promise<AccountExport>;
}

/** An event as `actor`'s reader sees it. */
export function activityView(event: ActivityEvent, forOwner: boolean): ActivityView {
  return {
    id: String(event.id),
    type: event.type,
    at: event.at.toISOString(),
    count: event.count,
    clientIp: event.clientIp,
    userAgent: event.userAgent,
    actor: event.actor === null ? null : forOwner ? 'operator' : event.actor,
    details: event.details,
  };
}

/** A page's cursor as the store takes it; ValidationError for anything but a positive integer. */
export function parseCursor(cursor: string | null | undefined, path = 'cursor'): number | null {
  if (cursor === undefined || cursor === null || cursor === '') return null;
  if (!/^[1-9][0-9]{0,15}$/.test(cursor) || !Number.isSafeInteger(Number(cursor))) throw new ValidationError([{ path, message: 'is not a cursor this API gave' }]);
  return Number(cursor);
}

/** A page of `events` (asked for `limit`): the cursor goes on while the page was full. */
export const pageOf = <T extends { readonly id: number }>(events: readonly T[], limit: number): string | null => (events.length === limit ? String(events.at(-1)!.id) : null);

export const profileOf = (record: UserRecord): AccountProfile => ({ id: record.id, name: record.name, email: record.email, emailVerified: record.emailVerified, locked: record.locked === true });

/** Everything stored about account `userId` (NotFound when there is none). */
export async function exportAccount(context: UseCaseContext, userId: number, forOwner: boolean): Promise<AccountExport> {
  const { store, clock } = context.ports;
  const record = await store.users.findById(userId);
  if (!record) throw new NotFound('Account');
  const now = clock.now();
  const [sessions, totp, recoveryCodesLeft, passkeys, contacts, links, identities] = await Promise.all([
    store.sessions.listByUser(userId, now),
    store.totp.find(userId),
    store.recoveryCodes.count(userId),
    store.passkeys.listByUser(userId),
    // The contact form takes any address, and signup one not yet proved: until the account has
    // verified its address, the messages sent with it may be someone else's words.
    record.emailVerified ? store.directory.contactsFrom(record.email, EXPORT_ACTIVITY_LIMIT) : [],
    store.directory.pendingLinks(userId),
    store.identities.listByUser(userId),
  ]);
  const events: ActivityEvent[] = [];
  let before: number | null = null;
  while (events.length < EXPORT_ACTIVITY_LIMIT) {
    const limit = Math.min(500, EXPORT_ACTIVITY_LIMIT - events.length);
    const page = await store.activity.list({ userId, before, limit });
    events.push(...page);
    if (page.length < limit) break;
    before = page.at(-1)!.id;
  }
  return {
    exportedAt: now.toISOString(),
    profile: profileOf(record),
    sessions: sessions.map((s) => ({ id: s.id, createdAt: s.createdAt.toISOString(), expiresAt: s.expiresAt.toISOString() })),
    secondFactors: { totp: totp && { enabled: totp.enabled, createdAt: totp.createdAt.toISOString() }, recoveryCodesLeft },
    passkeys: passkeys.map((p) => ({ id: p.id, name: p.name, createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null, transports: p.transports })),
    pendingLinks: {
      emailLink: links.emailLink && { purpose: links.emailLink.purpose, email: links.emailLink.email, createdAt: links.emailLink.createdAt.toISOString(), expiresAt: links.emailLink.expiresAt.toISOString() },
      passwordReset: links.passwordReset && { createdAt: links.passwordReset.createdAt.toISOString(), expiresAt: links.passwordReset.expiresAt.toISOString() },
    },
    identities: identities.map((i) => ({ provider: i.provider, subject: i.subject, email: i.email, linkedAt: i.linkedAt.toISOString() })),
    activity: events.map((e) => activityView(e, forOwner)),
    contactMessages: contacts.map((m) => ({ name: m.name, email: m.email, message: m.message, clientIp: m.clientIp, userAgent: m.userAgent, receivedAt: m.receivedAt.toISOString() })),
  };
}

export function activityUseCases(context: UseCaseContext): ActivityUseCases {
  const { store } = context.ports;
  return {
    async myActivity(cursor, meta) {
      const before = parseCursor(cursor);
      const { user } = await signedIn(context, meta);
      const events = await store.activity.list({ userId: user.id, before, limit: ACTIVITY_PAGE_SIZE });
      return { events: events.map((e) => activityView(e, true)), nextCursor: pageOf(events, ACTIVITY_PAGE_SIZE) };
    },

    async exportMyAccount(meta) {
      const session = await signedIn(context, meta);
      await requireStepUp(context, session.digest, session.user.id, null);
      const exported = await exportAccount(context, session.user.id, true).catch((error: unknown) => {
        // Deleted between the session's lookup and the reads.
        throw error instanceof NotFound ? new Unauthenticated() : error;
      });
      // Counted per account, client address and hour: a flood of exports does not grow the log without bound.
      const event = activityEntry(context, 'account-exported', meta);
      await store.activity.count({ ...event, userId: session.user.id }, exportSummary(session.user.id, event.clientIp, event.at));
      return exported;
    },
  };
}
