import { activityEntry } from './activity-entries.ts';
import { AccountChanged, NotFound, Unauthenticated } from '../errors.ts';
import type { User } from '../store.ts';
import { digestToken } from '../system.ts';
import type { UseCaseContext } from './context.ts';
import { firstLive, type RequestMeta, type SessionMeta } from './request.ts';

/** Session lifetime: absolute, from issue. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A fresh session: the raw token for the client and its expiry. */
export interface IssuedSession {
  /** The raw token: give it to the client, never store or log it. */
  readonly token: string;
  readonly expiresAt: Date;
  readonly maxAgeSeconds: number;
}

/** A session as the list of its user's sessions shows it. */
export interface ListedSession {
  readonly id: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  /** Whether it is the session the request came with. */
  readonly current: boolean;
}

/** The use cases of a signed-in session. */
export interface SessionUseCases {
  /** Ends the presented session. Throws Unauthenticated when there is no valid one. */
  logout(meta: SessionMeta): Promise<void>;
  /** The user of the presented session. Throws Unauthenticated when missing or expired. */
  me(meta: SessionMeta): Promise<User>;
  /** The presented session's user's sessions that have not expired. Throws Unauthenticated. */
  listSessions(meta: SessionMeta): Promise<readonly ListedSession[]>;
  /**
   * Ends one of the presented session's user's sessions by its id; resolves with whether it was the
   * presented one. Throws Unauthenticated, or NotFound when the id is not one of the user's.
   */
  endSession(id: string, meta: SessionMeta): Promise<{ readonly current: boolean }>;
}

/** A signed-in session: its user and its token's digest. */
export interface SignedInSession {
  readonly user: User;
  readonly digest: string;
}

/** Ends the token's session; Unauthenticated when it names none, or an expired one (deleted now). */
async function endSessionOf(context: UseCaseContext, token: string): Promise<void> {
  const deleted = await context.ports.store.sessions.delete(digestToken(token));
  if (!deleted || deleted.expiresAt.getTime() <= context.ports.clock.now().getTime()) throw new Unauthenticated();
}

/** The user of the token's session; Unauthenticated when it names none, or an expired one (deleted now). `me`'s hot path. */
async function userOf(context: UseCaseContext, token: string): Promise<User> {
  const { store, clock } = context.ports;
  const { sessions } = store;
  const digest = digestToken(token);
  const found = await sessions.findWithUser(digest);
  if (!found) throw new Unauthenticated();
  if (found.expiresAt.getTime() <= clock.now().getTime()) {
    await sessions.delete(digest);
    throw new Unauthenticated();
  }
  return found.user;
}

/** The first presented session that is live, with its user and digest; throws Unauthenticated as `me` does. */
export function signedIn(context: UseCaseContext, meta: SessionMeta): Promise<SignedInSession> {
  const presented = meta.sessionToken;
  if (!presented) return Promise.reject(new Unauthenticated());
  // Off `me`'s hot path: the account's operations need the digest too.
  const live = async (token: string): Promise<SignedInSession> => ({ user: await userOf(context, token), digest: digestToken(token) });
  return typeof presented === 'string' ? live(presented) : firstLive(presented, live);
}

export function sessionUseCases(context: UseCaseContext): SessionUseCases {
  const { store, clock } = context.ports;
  const end = (token: string) => endSessionOf(context, token);
  const user = (token: string) => userOf(context, token);

  return {
    logout(meta: SessionMeta): Promise<void> {
      const presented = meta.sessionToken;
      if (!presented) return Promise.reject(new Unauthenticated());
      return typeof presented === 'string' ? endSessionOf(context, presented) : firstLive(presented, end);
    },

    me(meta: SessionMeta): Promise<User> {
      const presented = meta.sessionToken;
      if (!presented) return Promise.reject(new Unauthenticated());
      return typeof presented === 'string' ? userOf(context, presented) : firstLive(presented, user);
    },

    async listSessions(meta: SessionMeta): Promise<readonly ListedSession[]> {
      const { user, digest } = await signedIn(context, meta);
      const listed = await store.sessions.listByUser(user.id, clock.now());
      return listed.map((s) => ({ id: s.id, createdAt: s.createdAt.toISOString(), expiresAt: s.expiresAt.toISOString(), current: s.tokenDigest === digest }));
    },

    async endSession(id: string, meta: SessionMeta): Promise<{ readonly current: boolean }> {
      const { user, digest } = await signedIn(context, meta);
      const ended = await context.manager.endSession(user.id, id, activityEntry(context, 'sessions-ended', meta as Partial<RequestMeta>, { sessions: 1 }));
      if (ended === null) throw new NotFound('Session');
      return { current: ended === digest };
    },
  };
}

/**
 * What a change made by `session` answers when its unit of work found the account moved on (another
 * change committed between the request's checks and its write, so nothing changed): Unauthenticated
 * when that other change ended this session too, else AccountChanged (409), so a client whose session
 * stands is not told it is signed out.
 */
export async function lostRace(context: UseCaseContext, session: { readonly digest: string }): Promise<AccountChanged | Unauthenticated> {
  return (await context.ports.store.sessions.findWithUser(session.digest)) ? new AccountChanged() : new Unauthenticated();
}

/**
 * Throws Unauthenticated when the session with this digest is gone (another request ended it while
 * this one ran): called before a refusal that would tell a signed-out client to send a code or start
 * again, so it is told it is signed out instead.
 */
export async function stillSignedIn(context: UseCaseContext, sessionDigest: string): Promise<void> {
  if (!(await context.ports.store.sessions.findWithUser(sessionDigest))) throw new Unauthenticated();
}
