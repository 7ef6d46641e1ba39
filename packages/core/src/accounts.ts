import { canonicalIp, clientKey, DEFAULT_IPV6_PREFIX, UNKNOWN_CLIENT } from './client-ip.ts';
import { InvalidCredentials, EmailTaken, NotFound, Unauthenticated, ValidationError, WrongPassword } from './errors.ts';
import type { LimitedOperation, Quota, Tally } from './rate-limits.ts';
import {
  ACCOUNT_LOGIN_LIMIT,
  ACCOUNT_LOGIN_POLICY,
  accountKey,
  countRequest,
  RATE_LIMITS,
  refundRequest,
  RESET_ADDRESS_LIMIT,
  RESET_ADDRESS_POLICY,
  withQuota,
} from './rate-limits.ts';
import type { Ports, RateLimitRule, OutgoingMail, User, UserRecord } from './ports.ts';

/**
 * What `createAccounts` needs: the store's ports, and optionally the hasher, clock and token source,
 * which default to PBKDF2 at the production cost, the system clock and 32 random bytes (tests pass
 * a cheap hasher and a `ManualClock`).
 */
export type AccountsPorts = Omit<Ports, 'hasher' | 'clock' | 'tokens'> & Partial<Pick<Ports, 'hasher' | 'clock' | 'tokens'>>;
import {
  ChangePasswordRequest,
  ContactRequest,
  DeleteAccountRequest,
  LoginRequest,
  PasswordResetConfirmRequest,
  PasswordResetRequest,
  SignupRequest,
  parseRequest,
  toWellFormed,
} from './schemas.ts';
import { contactMail } from './mails.ts';
import { digestToken, randomTokens, systemClock } from './system.ts';
import { Pbkdf2PasswordHasher } from './password-hasher.ts';
import { createDeviceProofs, DEVICE_LOGIN_POLICY, type IssuedDeviceProof } from './device-proofs.ts';

/** Session lifetime: absolute, from issue. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Live sessions one user may hold by default; a login beyond it ends the oldest. */
export const DEFAULT_MAX_SESSIONS_PER_USER = 50;

/** How long a password reset token is valid, from its request. */
export const RESET_TOKEN_TTL_MS = 30 * 60 * 1000;

/** A session as the list of its user's sessions shows it. */
export interface ListedSession {
  readonly id: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  /** Whether it is the session the request came with. */
  readonly current: boolean;
}

/** A request body as `JSON.parse` gave it, not yet checked: the use case's schema checks the rest. */
export type ParsedBody = null | boolean | number | string | readonly unknown[] | { readonly [key: string]: unknown };

/**
 * Reads a request body: called by a use case only after its rate limit has counted the request, so
 * even a body that cannot be read counts. Its rejection is the use case's failure, as it is.
 */
export type ReadBody = () => Promise<unknown>;

/** A use case's request body: the parsed JSON value, or the function that reads it (see `ReadBody`). */
export type RequestBody = ParsedBody | ReadBody;

/** What the caller knows about the request besides its body. */
export interface RequestMeta extends SessionMeta {
  /**
   * The client's IP address in any spelling Node accepts; the core canonicalises it (see
   * `canonicalIp`). Anything that is not an IP address counts as the one shared client `unknown`.
   */
  readonly clientIp: string;
  readonly userAgent?: string | null;
  /**
   * Device proofs the client presented (see device-proofs.ts), opaque to the transport: at login, a
   * genuine one for the account moves the attempt from the account's failure limit to its own.
   */
  readonly deviceProof?: string | readonly string[] | null;
}

export interface IssuedSession {
  /** The raw token: give it to the client, never store or log it. */
  readonly token: string;
  readonly expiresAt: Date;
  readonly maxAgeSeconds: number;
}

export interface SignedIn {
  readonly user: User;
  readonly session: IssuedSession;
  /** Proof that this client signed in to this account; give it to the client with the session. */
  readonly device: IssuedDeviceProof;
}

export interface Health {
  readonly ok: boolean;
  readonly status: 'ok' | 'unavailable';
  readonly service: string;
  readonly time: string;
}

/** The service's name where nothing else is configured: health answers, documents, logs. */
export const DEFAULT_SERVICE_NAME = 'sl-accounts';

export interface AccountsOptions {
  /** Service name reported by the health check; default `DEFAULT_SERVICE_NAME`. */
  readonly serviceName?: string;
  /** Overrides the spec's rate limits (tests, embedding hosts with their own policy). */
  readonly rateLimits?: Partial<Record<LimitedOperation, RateLimitRule>>;
  /** Failed logins per account and window; default ACCOUNT_LOGIN_LIMIT; `null` turns the limit off. */
  readonly accountLoginLimit?: RateLimitRule | null;
  /** How many leading bits of an IPv6 address identify one client for the limits (1 to 128); default 56. */
  readonly ipv6Prefix?: number;
  /** Reset requests per address (registered or not) and window; default RESET_ADDRESS_LIMIT. */
  readonly resetAddressLimit?: RateLimitRule;
  /**
   * The page a reset mail links to, absolute; the link adds `?token=<token>`. Configured, never
   * taken from a request, so no client can put another site's link into a mail. Default
   * `http://localhost/reset-password` (the composition root always passes one).
   */
  readonly resetUrl?: string;
  /** Hears failures of work done after the answer (a reset request's store write). Default: none. */
  readonly onBackgroundError?: (error: unknown) => void;
  /** The operator's address: each contact message is mailed there too. Unset: messages are only stored. */
  readonly contactTo?: string;
  /** Sessions one user may hold; a signup or login beyond it ends the oldest. Default DEFAULT_MAX_SESSIONS_PER_USER. */
  readonly maxSessionsPerUser?: number;
}

/**
 * The use cases. Each takes what a transport knows about the request; those that take a body take
 * it as a value or as a function that reads it (see `RequestBody`). Failures are domain errors.
 * The rate-limited ones answer with the `Quota` the request left (its `limits`); when they fail, the
 * quota counted before the failure is `countedLimits(error)`.
 */
export interface Accounts {
  /** Creates an account and signs it in. Throws ValidationError, EmailTaken or RateLimited. */
  signup(body: RequestBody, meta: RequestMeta): Promise<SignedIn & Quota>;
  /**
   * Checks credentials and starts a fresh session; a session the client presented is ended first.
   * Throws ValidationError, InvalidCredentials or RateLimited.
   */
  login(body: RequestBody, meta: RequestMeta): Promise<SignedIn & Quota>;
  /** Ends the presented session. Throws Unauthenticated when there is no valid one. */
  logout(meta: SessionMeta): Promise<void>;
  /** The user of the presented session. Throws Unauthenticated when missing or expired. */
  me(meta: SessionMeta): Promise<User>;
  /** Stores a contact message and queues its mail to `contactTo`. Throws ValidationError or RateLimited. */
  contact(body: RequestBody, meta: RequestMeta): Promise<Quota>;
  /**
   * Never throws: a store that does not answer makes the status `unavailable`. Concurrent calls
   * share one ping of the store.
   */
  health(): Promise<Health>;
  /** Deletes expired sessions, reset tokens and ended limiter windows; returns how many of each. */
  sweep(): Promise<{ readonly sessions: number; readonly resetTokens: number; readonly rateLimitWindows: number }>;
  /** The presented session's user's sessions that have not expired. Throws Unauthenticated. */
  listSessions(meta: SessionMeta): Promise<readonly ListedSession[]>;
  /**
   * Ends one of the presented session's user's sessions by its id; resolves with whether it was the
   * presented one. Throws Unauthenticated, or NotFound when the id is not one of the user's.
   */
  endSession(id: string, meta: SessionMeta): Promise<{ readonly current: boolean }>;
  /**
   * Sets a new password after checking the current one, and ends every other session of the user.
   * Throws Unauthenticated, ValidationError, WrongPassword or RateLimited (the per-account limit
   * on failed logins, which a wrong current password counts against).
   */
  changePassword(body: RequestBody, meta: RequestMeta): Promise<Quota>;
  /**
   * Starts a reset: when the address is registered, a token replaces the account's previous one and
   * a mail with the link is enqueued with it. Answers alike, and as fast, either way: the store
   * work happens after the answer (see `settled`). Throws ValidationError or RateLimited.
   */
  requestPasswordReset(body: RequestBody, meta: RequestMeta): Promise<Quota>;
  /**
   * Uses a reset token: sets the password and ends every session of its user. Throws
   * ValidationError (also for an unknown, used or expired token) or RateLimited.
   */
  confirmPasswordReset(body: RequestBody, meta: RequestMeta): Promise<Quota>;
  /**
   * Deletes the presented session's user, their sessions and reset token, after checking the
   * password. Throws Unauthenticated, ValidationError, WrongPassword or RateLimited (as changePassword).
   */
  deleteAccount(body: RequestBody, meta: RequestMeta): Promise<Quota>;
  /** Resolves when the work started after earlier answers (reset requests) has finished. */
  settled(): Promise<void>;
}

/** What the session operations need: only the token, so a transport computes nothing else. */
export interface SessionMeta {
  /**
   * The session token the client presented, if any; or several, in the order the client sent them
   * (a transport may carry several: a browser holds one cookie per path and domain, so a stale or
   * planted one may come before the live one). The first that names a live session is used.
   */
  readonly sessionToken?: string | readonly string[] | null;
}

/**
 * `use(token)` for each presented token in turn until one does not throw `Unauthenticated`; only the
 * case of several tokens comes here, so the usual single token costs nothing more.
 */
async function firstLive<T>(tokens: readonly string[], use: (token: string) => Promise<T>): Promise<T> {
  for (const token of tokens) {
    try {
      return await use(token);
    } catch (error) {
      if (!(error instanceof Unauthenticated)) throw error;
    }
  }
  throw new Unauthenticated();
}

function readBody(body: RequestBody): Promise<unknown> | unknown {
  return typeof body === 'function' ? body() : body;
}

/**
 * The service's use cases over the given ports. This is the core's public entry: any Node host can
 * call these with its own transport.
 */
export function createAccounts(ports: AccountsPorts, options: AccountsOptions = {}): Accounts {
  const { users, sessions, contacts, rateLimiter } = ports;
  const hasher = ports.hasher ?? new Pbkdf2PasswordHasher();
  const clock = ports.clock ?? systemClock;
  const tokens = ports.tokens ?? randomTokens;
  const devices = createDeviceProofs(ports.deviceKeys, tokens, clock);
  const serviceName = options.serviceName ?? DEFAULT_SERVICE_NAME;
  const rules = { ...RATE_LIMITS, ...options.rateLimits };
  const accountRule = options.accountLoginLimit === undefined ? ACCOUNT_LOGIN_LIMIT : options.accountLoginLimit;
  const ipv6Prefix = options.ipv6Prefix ?? DEFAULT_IPV6_PREFIX;
  const resetAddressRule = options.resetAddressLimit ?? RESET_ADDRESS_LIMIT;
  const resetUrl = new URL(options.resetUrl ?? 'http://localhost/reset-password');
  if (resetUrl.protocol !== 'https:' && resetUrl.protocol !== 'http:') throw new RangeError('resetUrl must be an http or https URL');
  const onBackgroundError = options.onBackgroundError ?? (() => {});
  const { resets } = ports;
  /** Work started after an answer, so `settled` can wait for it. */
  const background = new Set<Promise<void>>();
  if (!Number.isInteger(ipv6Prefix) || ipv6Prefix < 1 || ipv6Prefix > 128) throw new RangeError('ipv6Prefix must be an integer from 1 to 128');
  const maxSessions = options.maxSessionsPerUser ?? DEFAULT_MAX_SESSIONS_PER_USER;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new RangeError('maxSessionsPerUser must be a positive integer');

  /** Counts the request against the operation's per-client limit; returns the canonical client address. */
  async function limit(operation: LimitedOperation, meta: RequestMeta, tally: Tally): Promise<string> {
    const address = canonicalIp(meta.clientIp) ?? UNKNOWN_CLIENT;
    await countRequest(rateLimiter, operation, `${operation}:${clientKey(address, ipv6Prefix)}`, rules[operation], clock.now(), tally);
    return address;
  }

  // Health checks that overlap share one ping, so a flood of them (or one MCP batch) keeps at most
  // one statement in flight; a check that arrives during a ping gets that ping's answer.
  let pinging: Promise<boolean> | undefined;
  const pingOnce = () =>
    (pinging ??= ports
      .ping()
      .then(() => true, () => false)
      .finally(() => {
        pinging = undefined;
      }));

  async function issueSession(userId: number): Promise<IssuedSession> {
    const token = tokens.generate();
    const createdAt = clock.now();
    const expiresAt = new Date(createdAt.getTime() + SESSION_TTL_MS);
    await sessions.create({ tokenDigest: digestToken(token), userId, createdAt, expiresAt }, maxSessions);
    return { token, expiresAt, maxAgeSeconds: SESSION_TTL_MS / 1000 };
  }

  /** Ends the token's session; Unauthenticated when it names none, or an expired one (deleted now). */
  async function endSession(token: string): Promise<void> {
    const deleted = await sessions.delete(digestToken(token));
    if (!deleted || deleted.expiresAt.getTime() <= clock.now().getTime()) throw new Unauthenticated();
  }

  /** The user of the token's session; Unauthenticated when it names none, or an expired one (deleted now). `me`'s hot path. */
  async function userOf(token: string): Promise<User> {
    const digest = digestToken(token);
    const found = await sessions.findWithUser(digest);
    if (!found) throw new Unauthenticated();
    if (found.expiresAt.getTime() <= clock.now().getTime()) {
      await sessions.delete(digest);
      throw new Unauthenticated();
    }
    return found.user;
  }

  /** The user of the token's session and its digest (the account's operations need both); off `me`'s hot path. */
  async function liveSession(token: string): Promise<{ readonly user: User; readonly digest: string }> {
    return { user: await userOf(token), digest: digestToken(token) };
  }

  /** The first presented session that is live, with its user and digest; throws Unauthenticated as `me` does. */
  function signedIn(meta: SessionMeta): Promise<{ readonly user: User; readonly digest: string }> {
    const presented = meta.sessionToken;
    if (!presented) return Promise.reject(new Unauthenticated());
    return typeof presented === 'string' ? liveSession(presented) : firstLive(presented, liveSession);
  }

  /**
   * Checks a password the signed-in user gave to confirm a change. It is a login attempt on the
   * account: counted against the per-account limit first, taken back when right, so a stolen
   * session token cannot be used to guess the password faster than a login could.
   */
  async function confirmPassword(userId: number, password: string, tally: Tally): Promise<UserRecord> {
    const record = await users.findById(userId);
    // The user went between the session lookup and now (deleted elsewhere): the session went with it.
    if (!record) throw new Unauthenticated();
    const attempt = accountRule
      ? await countRequest(rateLimiter, ACCOUNT_LOGIN_POLICY, accountKey(ACCOUNT_LOGIN_POLICY, record.email), accountRule, clock.now(), tally)
      : null;
    if (!(await hasher.verify(password, record.passwordHash))) throw new WrongPassword();
    if (attempt) await refundRequest(rateLimiter, attempt, clock.now(), tally);
    return record;
  }

  /** Sessions a store ended beside a change: a cache in front of it forgets them now, not at the feed's pace. */
  const forget = (digests: readonly string[]) => {
    if (digests.length > 0) sessions.forget?.(digests);
  };

  function resetMail(to: string, token: string): OutgoingMail {
    const link = new URL(resetUrl);
    link.searchParams.set('token', token);
    return {
      to,
      subject: `Reset your ${serviceName} password`,
      text: [
        `Someone (we hope you) asked to reset the password of the ${serviceName} account of ${to}.`,
        '',
        `To choose a new password, open this link within ${RESET_TOKEN_TTL_MS / 60_000} minutes:`,
        '',
        link.href,
        '',
        'The link works once. Using it signs you out everywhere.',
        'If you did not ask for this, ignore this mail: your password stays as it is.',
      ].join('\n'),
    };
  }

  /** Login's steps, inside `withQuota`. */
  async function login(body: RequestBody, meta: RequestMeta, tally: Tally): Promise<SignedIn> {
    await limit('login', meta, tally);
    const input = parseRequest(LoginRequest, await readBody(body));
    // Every attempt on the account is counted before the password is checked, so concurrent
    // guesses cannot all pass one stale check; a successful login takes its count back. A client
    // with a genuine device proof for the account is counted on its own, so others' failures
    // cannot lock it out (and its own failures meet the same limit).
    let attempt = null;
    if (accountRule) {
      const device = await devices.verify(meta.deviceProof, input.email);
      attempt = device
        ? await countRequest(rateLimiter, DEVICE_LOGIN_POLICY, accountKey(DEVICE_LOGIN_POLICY, device), accountRule, clock.now(), tally)
        : await countRequest(rateLimiter, ACCOUNT_LOGIN_POLICY, accountKey(ACCOUNT_LOGIN_POLICY, input.email), accountRule, clock.now(), tally);
    }
    const record = await users.findByEmail(input.email);
    if (!record) {
      await hasher.verifyDummy(input.password);
      throw new InvalidCredentials();
    }
    if (!(await hasher.verify(input.password, record.passwordHash))) throw new InvalidCredentials();
    if (attempt) await refundRequest(rateLimiter, attempt, clock.now(), tally);
    if (hasher.needsRehash(record.passwordHash)) {
      await users.updatePasswordHash(record.id, await hasher.hash(input.password));
    }
    // Every presented session ends, not only the first: one planted under a longer path (sent
    // first) would otherwise outlive this login and shadow the fresh one.
    const presented = meta.sessionToken;
    if (typeof presented === 'string') await sessions.delete(digestToken(presented));
    else if (presented) for (const token of presented) await sessions.delete(digestToken(token));
    const user: User = { id: record.id, name: record.name, email: record.email };
    return { user, session: await issueSession(user.id), device: await devices.issue(user.email) };
  }

  /** A reset request's steps, inside `withQuota`. */
  async function requestPasswordReset(body: RequestBody, meta: RequestMeta, tally: Tally): Promise<object> {
    await limit('passwordReset', meta, tally);
    const input = parseRequest(PasswordResetRequest, await readBody(body));
    // Per address, registered or not, so the answer (a refusal included) says nothing about registration.
    await countRequest(rateLimiter, RESET_ADDRESS_POLICY, accountKey(RESET_ADDRESS_POLICY, input.email), resetAddressRule, clock.now(), tally);
    const token = tokens.generate();
    const createdAt = clock.now();
    const reset = { tokenDigest: digestToken(token), createdAt, expiresAt: new Date(createdAt.getTime() + RESET_TOKEN_TTL_MS) };
    // After the answer: a known address costs a write and a mail the unknown one does not, and
    // an answer that waited for them would tell the two apart by its time (test/bench/reset-timing.ts
    // measures both).
    const work = resets.request(input.email, reset, resetMail(input.email, token)).then(
      () => {},
      (error: unknown) => onBackgroundError(error),
    );
    background.add(work);
    void work.finally(() => background.delete(work));
    return {};
  }

  return {
    signup: (body: RequestBody, meta: RequestMeta): Promise<SignedIn & Quota> =>
      withQuota(async (tally) => {
        await limit('signup', meta, tally);
        const input = parseRequest(SignupRequest, await readBody(body));
        const passwordHash = await hasher.hash(input.password);
        const user = await users.insert({ name: input.name, email: input.email, passwordHash, createdAt: clock.now() });
        if (!user) throw new EmailTaken();
        return { user, session: await issueSession(user.id), device: await devices.issue(user.email) };
      }),

    login: (body: RequestBody, meta: RequestMeta): Promise<SignedIn & Quota> => withQuota((tally) => login(body, meta, tally)),

    logout(meta: SessionMeta): Promise<void> {
      const presented = meta.sessionToken;
      if (!presented) return Promise.reject(new Unauthenticated());
      return typeof presented === 'string' ? endSession(presented) : firstLive(presented, endSession);
    },

    me(meta: SessionMeta): Promise<User> {
      const presented = meta.sessionToken;
      if (!presented) return Promise.reject(new Unauthenticated());
      return typeof presented === 'string' ? userOf(presented) : firstLive(presented, userOf);
    },

    contact: (body: RequestBody, meta: RequestMeta): Promise<Quota> =>
      withQuota(async (tally) => {
        const clientIp = await limit('contact', meta, tally);
        const input = parseRequest(ContactRequest, await readBody(body));
        // The user agent is the transport's, not the client's field: kept, with what no store can hold replaced.
        const userAgent = meta.userAgent == null ? null : toWellFormed(meta.userAgent);
        const message = { ...input, clientIp, userAgent, receivedAt: clock.now() };
        await contacts.add(message, options.contactTo === undefined ? null : contactMail(message, options.contactTo, serviceName));
        return {};
      }),

    async health(): Promise<Health> {
      const ok = await pingOnce();
      return { ok, status: ok ? 'ok' : 'unavailable', service: serviceName, time: clock.now().toISOString() };
    },

    async sweep() {
      const now = clock.now();
      const [s, t, r] = await Promise.all([sessions.deleteExpired(now), resets.deleteExpired(now), rateLimiter.deleteExpired(now)]);
      return { sessions: s, resetTokens: t, rateLimitWindows: r };
    },

    async listSessions(meta: SessionMeta): Promise<readonly ListedSession[]> {
      const { user, digest } = await signedIn(meta);
      const listed = await sessions.listByUser(user.id, clock.now());
      return listed.map((s) => ({ id: s.id, createdAt: s.createdAt.toISOString(), expiresAt: s.expiresAt.toISOString(), current: s.tokenDigest === digest }));
    },

    async endSession(id: string, meta: SessionMeta): Promise<{ readonly current: boolean }> {
      const { user, digest } = await signedIn(meta);
      const ended = await sessions.deleteById(user.id, id);
      if (ended === null) throw new NotFound('Session');
      forget([ended]);
      return { current: ended === digest };
    },

    changePassword: (body: RequestBody, meta: RequestMeta): Promise<Quota> =>
      withQuota(async (tally) => {
        const { user, digest } = await signedIn(meta);
        const input = parseRequest(ChangePasswordRequest, await readBody(body));
        await confirmPassword(user.id, input.currentPassword, tally);
        const ended = await users.changePassword(user.id, await hasher.hash(input.newPassword), digest);
        if (ended === null) throw new Unauthenticated();
        forget(ended);
        return {};
      }),

    requestPasswordReset: (body: RequestBody, meta: RequestMeta): Promise<Quota> => withQuota((tally) => requestPasswordReset(body, meta, tally)),

    confirmPasswordReset: (body: RequestBody, meta: RequestMeta): Promise<Quota> =>
      withQuota(async (tally) => {
        await limit('passwordResetConfirm', meta, tally);
        const input = parseRequest(PasswordResetConfirmRequest, await readBody(body));
        const passwordHash = await hasher.hash(input.newPassword);
        const done = await resets.consume(digestToken(input.token), clock.now(), passwordHash);
        if (!done) throw new ValidationError([{ path: 'token', message: 'is unknown, used or expired' }]);
        forget(done.endedSessions);
        return {};
      }),

    deleteAccount: (body: RequestBody, meta: RequestMeta): Promise<Quota> =>
      withQuota(async (tally) => {
        const { user } = await signedIn(meta);
        const input = parseRequest(DeleteAccountRequest, await readBody(body));
        await confirmPassword(user.id, input.password, tally);
        const ended = await users.delete(user.id);
        if (ended === null) throw new Unauthenticated();
        forget(ended);
        return {};
      }),

    async settled(): Promise<void> {
      while (background.size > 0) await Promise.all(background);
    },
  };
}
