/**
 * The operator's use cases (issue 43, docs/decisions/0058-operator-api-and-cli.md): find, show, lock
 * and unlock an account, end its sessions, mail its owner a reset link, remove its second factors,
 * delete it, export it, and read the activity log. The admin API and the CLI are thin adapters over
 * these; every action is recorded with the operator's name (and reason) in the unit of work of its change.
 */
import { ACTIVITY_PAGE_SIZE, isActivityType, type ActivityType } from '../activity.ts';
import { NotFound, ValidationError } from '../errors.ts';
import { isWellFormedText } from '../schemas.ts';
import type { AccountMail } from '../ports.ts';
import type { UserRecord } from '../store.ts';
import { activityEntry } from './activity-entries.ts';
import { activityView, exportAccount, pageOf, parseCursor, profileOf, type AccountExport, type AccountProfile, type ActivityPage, type ActivityView } from './activity.ts';
import type { UseCaseContext } from './context.ts';
import { factorMethods } from './second-factor.ts';
import { passwordResetUseCases } from './password-reset.ts';
import type { RequestMeta } from './request.ts';

/** Who acts, and from where (the admin API's client; the CLI has none). */
export interface OperatorMeta extends Partial<Pick<RequestMeta, 'clientIp' | 'userAgent'>> {
  /** The operator's name: an `ADMIN_TOKENS` name, or `cli`. Recorded in every event of the action. */
  readonly operator: string;
}

/** An account as the operator sees it: profile, factors, sessions, last events. */
export interface AccountDetails {
  readonly profile: AccountProfile;
  readonly factors: readonly string[];
  readonly recoveryCodesLeft: number;
  readonly passkeys: readonly { readonly id: string; readonly name: string; readonly createdAt: string; readonly lastUsedAt: string | null }[];
  readonly sessions: readonly { readonly id: string; readonly createdAt: string; readonly expiresAt: string }[];
  readonly lastEvents: readonly ActivityView[];
}

/** Accounts found, by id; `nextCursor` pages on, `null` at the end. */
export interface AccountList {
  readonly accounts: readonly AccountProfile[];
  readonly nextCursor: string | null;
}

/** Longest reason an operator may give (characters). */
export const MAX_REASON_LENGTH = 500;
/** Accounts per page of a search. */
export const ACCOUNT_PAGE_SIZE = 50;
/** Events the account's details show. */
const LAST_EVENTS = 20;

export interface AdminUseCases {
  /** Accounts whose address starts with `email` (any case; empty: every account), by id. ValidationError for a bad cursor. */
  findAccounts(email: string | null | undefined, cursor: string | null | undefined): Promise<AccountList>;
  /** NotFound when there is no such account. */
  showAccount(id: number | string): Promise<AccountDetails>;
  /** Locks the account: it signs in by no method, its sessions end at once. ValidationError without a reason; NotFound. */
  lockAccount(id: number | string, body: unknown, meta: OperatorMeta): Promise<{ readonly account: AccountProfile; readonly endedSessions: number }>;
  unlockAccount(id: number | string, body: unknown, meta: OperatorMeta): Promise<{ readonly account: AccountProfile }>;
  endSessions(id: number | string, body: unknown, meta: OperatorMeta): Promise<{ readonly endedSessions: number }>;
  /** Mails the owner a reset link: 2 in any 30 minutes per inbox, on slots strangers' requests do not take (RESET_OPERATOR_POLICY). */
  sendPasswordReset(id: number | string, body: unknown, meta: OperatorMeta): Promise<{ readonly sent: true }>;
  /** Removes TOTP, recovery codes and passkeys (a person who lost their device); the owner is mailed a notice. */
  removeSecondFactors(id: number | string, body: unknown, meta: OperatorMeta): Promise<{ readonly endedSessions: number }>;
  /** Deletes the account; the owner is mailed the deletion notice. */
  deleteAccount(id: number | string, body: unknown, meta: OperatorMeta): Promise<void>;
  /** Everything stored about the account (the owner's export). */
  exportAccount(id: number | string, meta: OperatorMeta): Promise<AccountExport>;
  /** Every account's events, newest first, optionally of one type. ValidationError for a bad cursor or type. */
  listActivity(cursor: string | null | undefined, type: string | null | undefined): Promise<ActivityPage>;
}

/** An account id from a path or an argument: a positive integer, else ValidationError. */
export function parseAccountId(id: number | string): number {
  const n = typeof id === 'number' ? id : /^[1-9][0-9]{0,15}$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new ValidationError([{ path: 'id', message: 'is not an account id' }]);
  return n;
}

/** The operator's reason from a body `{ reason }` (no body: none): required with `required`, trimmed, bounded, well-formed. */
function reasonOf(body: unknown, required: boolean): string | null {
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) throw new ValidationError([{ path: '', message: 'must be a JSON object' }]);
  const raw = (body as { reason?: unknown } | undefined)?.reason;
  if (raw === undefined || raw === null) {
    if (required) throw new ValidationError([{ path: 'reason', message: 'is required: say why, for the record' }]);
    return null;
  }
  if (typeof raw !== 'string') throw new ValidationError([{ path: 'reason', message: 'must be a string' }]);
  if (!isWellFormedText(raw)) throw new ValidationError([{ path: 'reason', message: 'must not contain U+0000 or unpaired surrogates' }]);
  const reason = raw.trim();
  if (required && reason === '') throw new ValidationError([{ path: 'reason', message: 'is required: say why, for the record' }]);
  if (reason.length > MAX_REASON_LENGTH) throw new ValidationError([{ path: 'reason', message: `must be at most ${MAX_REASON_LENGTH} characters` }]);
  return reason === '' ? null : reason;
}

export function adminUseCases(context: UseCaseContext): AdminUseCases {
  const { store, clock } = context.ports;
  const { manager, serviceName } = context;
  // The operator's reset is not a stranger's: the public per-client limit of the operator's address
  // (shared with whoever else calls from it) does not hold it back; the inbox's bound does.
  const resets = passwordResetUseCases(context, { perClientLimit: false });

  const accountOf = async (id: number | string): Promise<UserRecord> => {
    const record = await store.users.findById(parseAccountId(id));
    if (!record) throw new NotFound('Account');
    return record;
  };
  const entry = (type: ActivityType, meta: OperatorMeta, reason: string | null, details: Record<string, string | number | boolean | null> = {}) =>
    activityEntry(context, type, meta.clientIp ? meta : null, reason === null ? details : { ...details, reason }, meta.operator);

  /** The owner's notice of an operator's action, as a security mail. */
  const operatorNotice = (subject: string, what: string): AccountMail => ({
    kind: 'security',
    queuedAt: clock.now(),
    subject: `[${serviceName}] ${subject}`,
    text: [what, '', `If you did not ask for this, reply to the site's support.`].join('\n'),
  });

  return {
    async findAccounts(email, cursor) {
      const after = parseCursor(cursor);
      const prefix = (email ?? '').trim().toLowerCase();
      if (prefix.length > 254) throw new ValidationError([{ path: 'email', message: 'must be at most 254 characters' }]);
      const found = await store.directory.search(prefix, after, ACCOUNT_PAGE_SIZE);
      return { accounts: found.map(profileOf), nextCursor: pageOf(found, ACCOUNT_PAGE_SIZE) };
    },

    async showAccount(id) {
      const record = await accountOf(id);
      const [factors, recoveryCodesLeft, passkeys, sessions, events] = await Promise.all([
        factorMethods(context, record.id),
        store.recoveryCodes.count(record.id),
        store.passkeys.listByUser(record.id),
        store.sessions.listByUser(record.id, clock.now()),
        store.activity.list({ userId: record.id, limit: LAST_EVENTS }),
      ]);
      return {
        profile: profileOf(record),
        factors,
        recoveryCodesLeft,
        passkeys: passkeys.map((p) => ({ id: p.id, name: p.name, createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null })),
        sessions: sessions.map((s) => ({ id: s.id, createdAt: s.createdAt.toISOString(), expiresAt: s.expiresAt.toISOString() })),
        lastEvents: events.map((e) => activityView(e, false)),
      };
    },

    async lockAccount(id, body, meta) {
      const userId = parseAccountId(id);
      const reason = reasonOf(body, true);
      const ended = await manager.lockAccount(userId, entry('account-locked', meta, reason));
      if (ended === null) throw new NotFound('Account');
      return { account: profileOf(await accountOf(userId)), endedSessions: ended.length };
    },

    async unlockAccount(id, body, meta) {
      const userId = parseAccountId(id);
      const reason = reasonOf(body, false);
      const user = await manager.unlockAccount(userId, entry('account-unlocked', meta, reason));
      if (!user) throw new NotFound('Account');
      return { account: profileOf(await accountOf(userId)) };
    },

    async endSessions(id, body, meta) {
      const userId = parseAccountId(id);
      const ended = await manager.endAllSessions(userId, entry('sessions-ended', meta, reasonOf(body, false)));
      if (ended === null) throw new NotFound('Account');
      return { endedSessions: ended.length };
    },

    async sendPasswordReset(id, body, meta) {
      const record = await accountOf(id);
      const reason = reasonOf(body, false);
      // The reset request itself, as the owner's would be (its token, its mail, the inbox's bound), without the per-client limit.
      await resets.requestPasswordReset({ email: record.email }, { clientIp: meta.clientIp ?? '', userAgent: meta.userAgent ?? null });
      await resets.settled();
      await manager.record(record.id, entry('password-reset-sent', meta, reason));
      return { sent: true };
    },

    async removeSecondFactors(id, body, meta) {
      const userId = parseAccountId(id);
      const reason = reasonOf(body, true);
      const notice = operatorNotice(
        'Your second factors were removed',
        `At your request, the site removed the second factors of your ${serviceName} account (its authenticator app, recovery codes and passkeys). Sign in with your password, then set up a new second factor.`,
      );
      const ended = await manager.removeSecondFactors(userId, entry('factor-removed', meta, reason, { kind: 'all' }), notice);
      if (ended === null) throw new NotFound('Account');
      return { endedSessions: ended.length };
    },

    async deleteAccount(id, body, meta) {
      const reason = reasonOf(body, true);
      const notice = operatorNotice('Your account was deleted', `The site deleted your ${serviceName} account and everything it held.`);
      // Under the generation read here; a change that moved it meanwhile is read again (as the lock is).
      for (;;) {
        const record = await accountOf(id);
        if ((await manager.deleteAccount(record.id, record.credentialGeneration, notice, entry('account-deleted', meta, reason))) !== null) return;
      }
    },

    async exportAccount(id, meta) {
      const userId = parseAccountId(id);
      const exported = await exportAccount(context, userId, false);
      await manager.record(userId, entry('account-exported', meta, null));
      return exported;
    },

    async listActivity(cursor, type) {
      const before = parseCursor(cursor);
      if (type !== undefined && type !== null && type !== '' && !isActivityType(type)) throw new ValidationError([{ path: 'type', message: 'is not an activity type' }]);
      const events = await store.activity.list({ type: type ? (type as ActivityType) : null, before, limit: ACTIVITY_PAGE_SIZE });
      return { events: events.map((e) => activityView(e, false)), nextCursor: pageOf(events, ACTIVITY_PAGE_SIZE) };
    },
  };
}
