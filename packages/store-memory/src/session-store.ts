import { randomUUID } from 'node:crypto';
import type { InProcessRevocations, NewSession, SessionInfo, SessionStore, SessionWithUser } from '@sl/core';
import { deleteWhere } from './delete-where.ts';
import type { UserTable } from './user-store.ts';

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

  async create(session: NewSession): Promise<void> {
    this.#table.sessions.set(session.tokenDigest, { id: randomUUID(), userId: session.userId, createdAt: session.createdAt, expiresAt: session.expiresAt });
  }

  async findWithUser(tokenDigest: string): Promise<SessionWithUser | null> {
    const session = this.#table.sessions.get(tokenDigest);
    const record = session ? this.#table.byId.get(session.userId) : undefined;
    if (!session || !record) return null;
    return { user: { id: record.id, name: record.name, email: record.email }, expiresAt: session.expiresAt };
  }

  async listByUser(userId: number, now: Date): Promise<readonly SessionInfo[]> {
    const listed: SessionInfo[] = [];
    for (const [tokenDigest, s] of this.#table.sessions) {
      if (s.userId === userId && s.expiresAt.getTime() > now.getTime()) listed.push({ id: s.id, tokenDigest, createdAt: s.createdAt, expiresAt: s.expiresAt });
    }
    return listed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  async deleteById(userId: number, id: string): Promise<string | null> {
    for (const [digest, s] of this.#table.sessions) {
      if (s.id === id && s.userId === userId) {
        this.#table.sessions.delete(digest);
        this.revocations.publish([digest]);
        return digest;
      }
    }
    return null;
  }

  async delete(tokenDigest: string): Promise<{ readonly expiresAt: Date } | null> {
    const session = this.#table.sessions.get(tokenDigest);
    if (!session) return null;
    this.#table.sessions.delete(tokenDigest);
    this.revocations.publish([tokenDigest]);
    return { expiresAt: session.expiresAt };
  }

  async deleteExpired(now: Date): Promise<number> {
    const gone: string[] = [];
    const count = deleteWhere(this.#table.sessions, (s, digest) => {
      const expired = s.expiresAt.getTime() <= now.getTime();
      if (expired) gone.push(digest);
      return expired;
    });
    this.revocations.publish(gone);
    return count;
  }

  /** How many sessions are kept, expired ones included (for tests of the sweep). */
  get size(): number {
    return this.#table.sessions.size;
  }
}
