import type { Identity, OneTimeToken, Passkey, StepUp, TotpFactor, UserRecord } from '@sl-accounts/service/core';

/** The memory store's key of an identity: issuer and subject, unique together (JSON keeps them apart). */
export const identityKey = (issuer: string, subject: string): string => JSON.stringify([issuer, subject]);

/** One stored session, under its token digest. */
export interface StoredSession {
  readonly id: string;
  readonly userId: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  /** The session's newest step-up; `null` before any. */
  readonly stepUp: StepUp | null;
}

/** One stored single-use token, with the slot it holds (`null`: none). */
export interface StoredToken extends OneTimeToken {
  readonly slot: string | null;
}

/** Most slotted tokens bound to no account kept (resets asked for nobody's address: they open nothing), so the oldest may go. */
const UNBOUND_SLOTTED_CAPACITY = 1_000;

/** A table's rows that reference a parent row, as a SQL foreign key does: `keysOf(parent key)` lists them. */
interface Reference {
  readonly parent: Map<unknown, unknown>;
  readonly child: Map<unknown, unknown>;
  readonly keysOf: (parentKey: unknown) => Iterable<unknown>;
}

/** The child row keyed by its parent's key (one per parent: `user_id primary key references users`). */
const sameKey =
  (child: Map<unknown, unknown>) =>
  (parentKey: unknown): unknown[] =>
    child.has(parentKey) ? [parentKey] : [];

/** The child rows whose `name` field holds the parent's key (found by a scan: no index, as none is hot). */
const field =
  <K, V>(child: Map<K, V>, name: keyof V) =>
  (parentKey: unknown): K[] =>
    [...child].filter(([, row]) => row[name] === parentKey).map(([key]) => key);

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
  /** Single-use tokens by digest; written through `putToken`/`remove`, which keep `tokenBySlot` and `unbound`. */
  readonly oneTimeTokens = new Map<string, StoredToken>();
  /** The digest of the token in each slot. */
  readonly tokenBySlot = new Map<string, string>();
  /** Digests of slotted tokens bound to no account, oldest first: kept apart so they are bounded. */
  readonly unbound = new Map<string, true>();
  /** Passkeys by credential ID. */
  readonly passkeys = new Map<string, Passkey>();
  /** TOTP factors by user id (pending or on). */
  readonly totp = new Map<number, TotpFactor>();
  /** Recovery code digests by user id (a fresh set on every replacement: never changed in place). */
  readonly recoveryCodes = new Map<number, ReadonlySet<string>>();
  /** Identities at providers, by `identityKey(issuer, subject)`. */
  readonly identities = new Map<string, Identity>();

  /**
   * Which rows belong to which: the SQL stores' foreign keys (`references … on delete cascade`),
   * declared once. `remove` follows them: a row's deletion deletes every row that references it,
   * and theirs in turn, as the SQL stores' cascades do.
   */
  readonly #references: readonly Reference[] = [
    { parent: this.users, child: this.sessions, keysOf: (userId) => this.sessionsOf(userId as number) },
    { parent: this.users, child: this.oneTimeTokens, keysOf: field(this.oneTimeTokens, 'userId') },
    { parent: this.users, child: this.totp, keysOf: sameKey(this.totp) },
    { parent: this.users, child: this.recoveryCodes, keysOf: sameKey(this.recoveryCodes) },
    { parent: this.users, child: this.passkeys, keysOf: field(this.passkeys, 'userId') },
    { parent: this.users, child: this.identities, keysOf: field(this.identities, 'userId') },
  ];

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

  /**
   * Deletes the row under `key` with every row that references it (see `#references`), keeping the
   * indexes (`idByEmail`, `sessionsByUser`); returns what was stored.
   */
  remove<K, V>(unit: Unit, table: Map<K, V>, key: K): V | undefined {
    const row = table.get(key);
    if (row === undefined) return undefined;
    for (const reference of this.#references) {
      if (reference.parent === table) for (const child of reference.keysOf(key)) this.remove(unit, reference.child, child);
    }
    this.put(unit, table, key, undefined);
    if (table === (this.users as Map<unknown, unknown>)) this.put(unit, this.idByEmail, (row as UserRecord).email, undefined);
    if (table === (this.sessions as Map<unknown, unknown>)) this.#unindexSession(unit, key as string, row as StoredSession);
    if (table === (this.oneTimeTokens as Map<unknown, unknown>)) {
      const { slot } = row as StoredToken;
      if (slot !== null && this.tokenBySlot.get(slot) === key) this.put(unit, this.tokenBySlot, slot, undefined);
      if (this.unbound.has(key as string)) this.put(unit, this.unbound, key as string, undefined);
    }
    return row;
  }

  /** Removes a session (and what references it); returns what was stored. */
  removeSession(unit: Unit, digest: string): StoredSession | undefined {
    return this.remove(unit, this.sessions, digest);
  }

  #unindexSession(unit: Unit, digest: string, session: StoredSession): void {
    const user = this.sessionsByUser.get(session.userId)!;
    this.#unindex(session.userId, user, digest);
    unit.wrote(() => {
      user.add(digest);
      this.sessionsByUser.set(session.userId, user);
    });
  }

  /** The user's session digests. */
  sessionsOf(userId: number): string[] {
    return [...(this.sessionsByUser.get(userId) ?? [])];
  }

  /** Stores a token, replacing the one with its digest and the one in its slot; past the bound, the oldest slotted ones bound to no account go. */
  putToken(unit: Unit, token: OneTimeToken, slot: string | null): void {
    this.remove(unit, this.oneTimeTokens, token.digest);
    const previous = slot === null ? undefined : this.tokenBySlot.get(slot);
    if (previous !== undefined) this.remove(unit, this.oneTimeTokens, previous);
    this.put(unit, this.oneTimeTokens, token.digest, { ...token, slot });
    if (slot === null) return;
    this.put(unit, this.tokenBySlot, slot, token.digest);
    if (token.userId !== null) return;
    this.put(unit, this.unbound, token.digest, true);
    for (const digest of this.unbound.keys()) {
      if (this.unbound.size <= UNBOUND_SLOTTED_CAPACITY) break;
      this.remove(unit, this.oneTimeTokens, digest);
    }
  }

  #unindex(userId: number, user: Set<string>, digest: string): void {
    user.delete(digest);
    if (user.size === 0 && this.sessionsByUser.get(userId) === user) this.sessionsByUser.delete(userId);
  }
}
