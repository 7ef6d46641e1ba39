import type { LoginChallenge, NewEmailToken, ResetToken, StepUp, TotpFactor, UserRecord } from '@sl-accounts/core';

/** One stored session, under its token digest. */
export interface StoredSession {
  readonly id: string;
  readonly userId: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** Most reset tokens bound to no account kept: they open nothing, so the oldest may go. */
const UNBOUND_RESET_CAPACITY = 1_000;

/**
 * Where a write happens: inside a unit of work, whose writes are undone if it fails and whose
 * effects outside the tables (revocations, mails, contact messages) wait for its commit; or outside
 * any, where each write is final at once.
 */
export class Unit {
  /** Undo steps of the writes so far, newest last; `null` outside a unit of work. */
  readonly #undo: (() => void)[] | null;
  readonly #after: (() => void)[] = [];

  constructor(inTransaction: boolean) {
    this.#undo = inTransaction ? [] : null;
  }

  /** Records how to undo a write just made. */
  wrote(undo: () => void): void {
    this.#undo?.push(undo);
  }

  /** Runs `effect` once the writes are final: now outside a unit of work, at its commit inside one. */
  later(effect: () => void): void {
    if (this.#undo === null) effect();
    else this.#after.push(effect);
  }

  commit(): void {
    for (const effect of this.#after.splice(0)) effect();
  }

  rollback(): void {
    const undo = this.#undo ?? [];
    while (undo.length > 0) undo.pop()!();
  }
}

/**
 * The memory store's rows, shared by its repositories: users, sessions, reset and e-mail tokens.
 * Every write names its unit, which records how to undo it.
 */
export class Tables {
  readonly users = new Map<number, UserRecord>();
  readonly idByEmail = new Map<string, number>();
  /** Ids are never given twice, not even those of a rolled-back insert (as a SQL sequence). */
  nextId = 1;
  /** Sessions by token digest; written through `addSession`/`removeSession`, which keep `sessionsByUser`. */
  readonly sessions = new Map<string, StoredSession>();
  /** Each user's session digests: the user's sessions without a scan. */
  readonly sessionsByUser = new Map<number, Set<string>>();
  /** Reset tokens bound to an account, by the address they were asked for. */
  readonly resetTokens = new Map<string, ResetToken>();
  /** Those bound to none (they open nothing), by address, oldest first: kept apart so they are bounded. */
  readonly unboundResetTokens = new Map<string, ResetToken>();
  /** E-mail tokens by user id: one per user, the newest. */
  readonly emailTokens = new Map<number, NewEmailToken>();
  /** TOTP factors by user id (pending or on). */
  readonly totp = new Map<number, TotpFactor>();
  /** Recovery code digests by user id (a fresh set on every replacement: never changed in place). */
  readonly recoveryCodes = new Map<number, ReadonlySet<string>>();
  /** Login challenges by token digest. */
  readonly loginChallenges = new Map<string, LoginChallenge>();
  /** Each session's newest step-up, by token digest; removed with the session. */
  readonly stepUps = new Map<string, StepUp>();

  /** Sets (or with `undefined` deletes) `key` in `map`, recording the undo in `unit`. */
  put<K, V>(unit: Unit, map: Map<K, V>, key: K, value: V | undefined): void {
    const had = map.has(key);
    const before = map.get(key);
    if (value === undefined) map.delete(key);
    else map.set(key, value);
    unit.wrote(() => (had ? map.set(key, before as V) : map.delete(key)));
  }

  setUser(unit: Unit, record: UserRecord, previous?: UserRecord): void {
    if (previous && previous.email !== record.email) this.put(unit, this.idByEmail, previous.email, undefined);
    this.put(unit, this.users, record.id, record);
    this.put(unit, this.idByEmail, record.email, record.id);
  }

  addSession(unit: Unit, digest: string, session: StoredSession): void {
    this.put(unit, this.sessions, digest, session);
    let digests = this.sessionsByUser.get(session.userId);
    if (!digests) this.sessionsByUser.set(session.userId, (digests = new Set()));
    const user = digests;
    user.add(digest);
    unit.wrote(() => this.#unindex(session.userId, user, digest));
  }

  /** Removes a session; returns what was stored. */
  removeSession(unit: Unit, digest: string): StoredSession | undefined {
    const session = this.sessions.get(digest);
    if (!session) return undefined;
    this.put(unit, this.sessions, digest, undefined);
    this.put(unit, this.stepUps, digest, undefined);
    const user = this.sessionsByUser.get(session.userId)!;
    this.#unindex(session.userId, user, digest);
    unit.wrote(() => {
      user.add(digest);
      this.sessionsByUser.set(session.userId, user);
    });
    return session;
  }

  /** The user's session digests. */
  sessionsOf(userId: number): string[] {
    return [...(this.sessionsByUser.get(userId) ?? [])];
  }

  /** Stores a reset token under its address, replacing the one there; past the bound, the oldest bound to no account go. */
  putResetToken(unit: Unit, token: ResetToken): void {
    this.put(unit, this.resetTokens, token.email, undefined);
    this.put(unit, this.unboundResetTokens, token.email, undefined);
    if (token.userId !== null) return this.put(unit, this.resetTokens, token.email, token);
    this.put(unit, this.unboundResetTokens, token.email, token);
    for (const email of this.unboundResetTokens.keys()) {
      if (this.unboundResetTokens.size <= UNBOUND_RESET_CAPACITY) break;
      this.put(unit, this.unboundResetTokens, email, undefined);
    }
  }

  #unindex(userId: number, user: Set<string>, digest: string): void {
    user.delete(digest);
    if (user.size === 0 && this.sessionsByUser.get(userId) === user) this.sessionsByUser.delete(userId);
  }
}
