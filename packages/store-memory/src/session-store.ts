import { InProcessRevocations, type NewSession, type SessionStore, type SessionWithUser } from '@sl/core';
import { deleteWhere } from './delete-where.ts';
import type { UserTable } from './user-store.ts';

export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, { readonly userId: number; readonly expiresAt: Date }>();
  /** Read only, for the join that findWithUser makes. */
  readonly #users: UserTable;
  /** Every deletion, for the session caches in front of this store. */
  readonly revocations = new InProcessRevocations();

  constructor(users: UserTable) {
    this.#users = users;
  }

  async create(session: NewSession): Promise<void> {
    this.#sessions.set(session.tokenDigest, { userId: session.userId, expiresAt: session.expiresAt });
  }

  async findWithUser(tokenDigest: string): Promise<SessionWithUser | null> {
    const session = this.#sessions.get(tokenDigest);
    const record = session ? this.#users.byId.get(session.userId) : undefined;
    if (!session || !record) return null;
    return { user: { id: record.id, name: record.name, email: record.email }, expiresAt: session.expiresAt };
  }

  async delete(tokenDigest: string): Promise<{ readonly expiresAt: Date } | null> {
    const session = this.#sessions.get(tokenDigest);
    if (!session) return null;
    this.#sessions.delete(tokenDigest);
    this.revocations.publish([tokenDigest]);
    return { expiresAt: session.expiresAt };
  }

  async deleteExpired(now: Date): Promise<number> {
    const gone: string[] = [];
    const count = deleteWhere(this.#sessions, (s, digest) => {
      const expired = s.expiresAt.getTime() <= now.getTime();
      if (expired) gone.push(digest);
      return expired;
    });
    this.revocations.publish(gone);
    return count;
  }

  /** How many sessions are kept, expired ones included (for tests of the sweep). */
  get size(): number {
    return this.#sessions.size;
  }
}
