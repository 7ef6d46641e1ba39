import { randomUUID } from 'node:crypto';
import type { AccountMail, InProcessRevocations, NewSession, SessionInfo, SessionStore, SessionWithUser } from '@sl-accounts/core';
import { toUser, type UserTable } from './user-store.ts';

/** The memory store's sessions (made by createMemoryStore, on the tables its user store writes). */
export class MemorySessionStore implements SessionStore {
  /** The sessions live in the shared tables: a user's deletion or password change ends them too. */
  readonly #table: UserTable;

  constructor(table: UserTable) {
    this.#table = table;
  }

  /** Every deletion, for the session caches in front of this store. */
  get revocations(): InProcessRevocations {
    return this.#table.revocations;
  }

  async create(session: NewSession, maxPerUser?: number, notice?: AccountMail | null): Promise<boolean> {
    const table = this.#table;
    const { tokenDigest, userId } = session;
    const record = table.byId.get(userId);
    // The check, the insert and the notice in one synchronous step: no change of credential can come between.
    if (record?.credentialGeneration !== session.credentialGeneration) return false;
    table.notify(record, notice);
    table.addSession(tokenDigest, { id: randomUUID(), userId, createdAt: session.createdAt, expiresAt: session.expiresAt });
    const digests = table.sessionsByUser.get(userId)!;
    if (maxPerUser === undefined || digests.size <= maxPerUser) return true;
    // Oldest first by creation time; a stable sort keeps insertion order among equal times.
    const others = [...digests].filter((d) => d !== tokenDigest);
    others.sort((a, b) => table.sessions.get(a)!.createdAt.getTime() - table.sessions.get(b)!.createdAt.getTime());
    const ended = others.slice(0, digests.size - maxPerUser);
    for (const digest of ended) table.removeSession(digest);
    this.revocations.publish(ended);
    return true;
  }

  async findWithUser(tokenDigest: string): Promise<SessionWithUser | null> {
    const session = this.#table.sessions.get(tokenDigest);
    const record = session ? this.#table.byId.get(session.userId) : undefined;
    if (!session || !record) return null;
    return { user: toUser(record), expiresAt: session.expiresAt };
  }

  async listByUser(userId: number, now: Date): Promise<readonly SessionInfo[]> {
    const listed: SessionInfo[] = [];
    for (const tokenDigest of this.#table.sessionsByUser.get(userId) ?? []) {
      const s = this.#table.sessions.get(tokenDigest)!;
      if (s.expiresAt.getTime() > now.getTime()) listed.push({ id: s.id, tokenDigest, createdAt: s.createdAt, expiresAt: s.expiresAt });
    }
    return listed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  async deleteById(userId: number, id: string): Promise<string | null> {
    for (const digest of this.#table.sessionsByUser.get(userId) ?? []) {
      if (this.#table.sessions.get(digest)!.id === id) {
        this.#table.removeSession(digest);
        this.revocations.publish([digest]);
        return digest;
      }
    }
    return null;
  }

  async delete(tokenDigest: string): Promise<{ readonly expiresAt: Date } | null> {
    const session = this.#table.removeSession(tokenDigest);
    if (!session) return null;
    this.revocations.publish([tokenDigest]);
    return { expiresAt: session.expiresAt };
  }

  async deleteExpired(now: Date): Promise<number> {
    const gone: string[] = [];
    for (const [digest, s] of this.#table.sessions) if (s.expiresAt.getTime() <= now.getTime()) gone.push(digest);
    for (const digest of gone) this.#table.removeSession(digest);
    this.revocations.publish(gone);
    return gone.length;
  }

  /** How many sessions are kept, expired ones included (for tests of the sweep). */
  get size(): number {
    return this.#table.sessions.size;
  }
}
