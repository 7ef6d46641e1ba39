import { FIRST_CREDENTIAL_GENERATION, InProcessRevocations, type AccountMail, type EmailLink, type NewEmailToken, type NewUser, type User, type UserRecord, type UserStore } from '@sl-accounts/core';
import type { MemoryOutbox } from './outbox.ts';

/** One stored session, under its token digest. */
export interface StoredSession {
  readonly id: string;
  readonly userId: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** One stored reset token, under its user's id (at most one per user). */
export interface StoredReset {
  readonly tokenDigest: string;
  readonly expiresAt: Date;
  /** The user's credential generation when it was requested: it works only while that is current. */
  readonly credentialGeneration: number;
}

/** A user as the ports give it out, without what stays inside the core. */
export function toUser(record: UserRecord): User {
  return { id: record.id, name: record.name, email: record.email, emailVerified: record.emailVerified };
}

/**
 * The tables of one memory store, shared by its adapters: the session store joins on the users, a
 * user's deletion removes their sessions and reset token, a change of credential ends sessions. Private
 * to this package (the entry does not export it), so the adapters offer the ports only. Every
 * change that spans tables happens in one synchronous step, as a transaction would.
 */
export class UserTable {
  readonly byId = new Map<number, UserRecord>();
  readonly idByEmail = new Map<string, number>();
  nextId = 1;
  /** Sessions by token digest; change them only through the methods below, which keep `sessionsByUser`. */
  readonly sessions = new Map<string, StoredSession>();
  /** Each user's session digests: the bound on sessions per user, and a user's list, without a scan. */
  readonly sessionsByUser = new Map<number, Set<string>>();
  /** Reset tokens by user id. */
  readonly resets = new Map<number, StoredReset>();
  /**
   * Verification and change-of-address tokens by user id (at most one per user: the newest), each
   * with the credential generation it was issued under (a change works only while that is current).
   */
  readonly emailTokens = new Map<number, NewEmailToken>();
  /** Every session deletion, for the session caches in front of this store. */
  readonly revocations = new InProcessRevocations();
  /** The store's outbox: a change's notice is queued in the change's synchronous step. */
  readonly outbox: MemoryOutbox;

  constructor(outbox: MemoryOutbox) {
    this.outbox = outbox;
  }

  /** Queues `notice`, if any, to the account's address (as `record` has it). */
  notify(record: UserRecord, notice: AccountMail | null | undefined): void {
    if (!notice) return;
    const { queuedAt, ...mail } = notice;
    this.outbox.enqueue({ ...mail, to: record.email }, queuedAt);
  }

  /** Stores a session under its digest (replacing one there). */
  addSession(digest: string, session: StoredSession): void {
    this.removeSession(digest);
    this.sessions.set(digest, session);
    let digests = this.sessionsByUser.get(session.userId);
    if (!digests) this.sessionsByUser.set(session.userId, (digests = new Set()));
    digests.add(digest);
  }

  /** Removes a session without publishing it; returns what was stored. */
  removeSession(digest: string): StoredSession | undefined {
    const session = this.sessions.get(digest);
    if (!session) return undefined;
    this.sessions.delete(digest);
    const digests = this.sessionsByUser.get(session.userId);
    digests?.delete(digest);
    if (digests?.size === 0) this.sessionsByUser.delete(session.userId);
    return session;
  }

  /**
   * A change of credential: the new hash under the next generation, the reset token voided and the
   * user's sessions but `keep` ended; returns their digests (and publishes them). One synchronous step.
   */
  changeCredential(record: UserRecord, passwordHash: string, keep: string | null, changes: Partial<Pick<UserRecord, 'email' | 'emailVerified'>> = {}): string[] {
    this.byId.set(record.id, { ...record, ...changes, passwordHash, credentialGeneration: record.credentialGeneration + 1 });
    this.resets.delete(record.id);
    return this.endSessions(record.id, keep);
  }

  /**
   * Replaces the user's row with `record` (a change a session shows: name, address, verification)
   * and tells the session caches that the user's sessions changed.
   */
  updateUser(record: UserRecord): void {
    this.byId.set(record.id, record);
    this.revocations.publish([...(this.sessionsByUser.get(record.id) ?? [])]);
  }

  /** Deletes the user's sessions but `keep`; returns their digests (and publishes them). */
  endSessions(userId: number, keep: string | null): string[] {
    const ended = [...(this.sessionsByUser.get(userId) ?? [])].filter((digest) => digest !== keep);
    for (const digest of ended) this.removeSession(digest);
    this.revocations.publish(ended);
    return ended;
  }
}

export class MemoryUserStore implements UserStore {
  readonly #table: UserTable;

  constructor(table: UserTable) {
    this.#table = table;
  }

  async insert(user: NewUser, verification?: EmailLink): Promise<User | null> {
    const table = this.#table;
    // Check and insert happen in one synchronous step, so concurrent inserts cannot both win.
    if (table.idByEmail.has(user.email)) return null;
    const record: UserRecord = {
      id: table.nextId++,
      name: user.name,
      email: user.email,
      emailVerified: false,
      passwordHash: user.passwordHash,
      credentialGeneration: FIRST_CREDENTIAL_GENERATION,
    };
    table.byId.set(record.id, record);
    table.idByEmail.set(record.email, record.id);
    if (verification) {
      table.emailTokens.set(record.id, verification.token);
      for (const mail of verification.mails) table.outbox.enqueue(mail, user.createdAt);
    }
    return toUser(record);
  }

  async rename(userId: number, name: string): Promise<User | null> {
    const record = this.#table.byId.get(userId);
    if (!record) return null;
    const renamed = { ...record, name };
    this.#table.updateUser(renamed);
    return toUser(renamed);
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const id = this.#table.idByEmail.get(email);
    return id === undefined ? null : (this.#table.byId.get(id) ?? null);
  }

  async findById(userId: number): Promise<UserRecord | null> {
    return this.#table.byId.get(userId) ?? null;
  }

  async updatePasswordHash(userId: number, generation: number, passwordHash: string): Promise<boolean> {
    const record = this.#table.byId.get(userId);
    if (record?.credentialGeneration !== generation) return false;
    this.#table.byId.set(userId, { ...record, passwordHash });
    return true;
  }

  async changePassword(userId: number, generation: number, passwordHash: string, keep: string | null, notice?: AccountMail | null): Promise<readonly string[] | null> {
    const record = this.#table.byId.get(userId);
    if (record?.credentialGeneration !== generation) return null;
    this.#table.notify(record, notice);
    return this.#table.changeCredential(record, passwordHash, keep);
  }

  async delete(userId: number, generation: number, notice?: AccountMail | null): Promise<readonly string[] | null> {
    const table = this.#table;
    const record = table.byId.get(userId);
    if (record?.credentialGeneration !== generation) return null;
    table.notify(record, notice);
    table.byId.delete(userId);
    table.idByEmail.delete(record.email);
    table.resets.delete(userId);
    table.emailTokens.delete(userId);
    return table.endSessions(userId, null);
  }
}
