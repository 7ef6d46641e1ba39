import { InProcessRevocations, type NewSession, type SessionStore, type SessionWithUser } from '@sl/core';
import { deleteWhere } from './delete-where.ts';
import type { UserTable } from './user-store.ts';

interface Session {
  readonly userId: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Session>();
  /** Each user's session digests, for the bound on sessions per user. */
  readonly #byUser = new Map<number, Set<string>>();
  /** Read only, for the join that findWithUser makes. */
  readonly #users: UserTable;
  /** Every deletion, for the session caches in front of this store. */
  readonly revocations = new InProcessRevocations();

  constructor(users: UserTable) {
    this.#users = users;
  }

  async create(session: NewSession, maxPerUser?: number): Promise<void> {
    const { tokenDigest, userId } = session;
    this.#remove(tokenDigest);
    this.#sessions.set(tokenDigest, { userId, createdAt: session.createdAt, expiresAt: session.expiresAt });
    let digests = this.#byUser.get(userId);
    if (!digests) this.#byUser.set(userId, (digests = new Set()));
    digests.add(tokenDigest);
    if (maxPerUser === undefined || digests.size <= maxPerUser) return;
    // Oldest first by creation time; a stable sort keeps insertion order among equal times.
    const others = [...digests].filter((d) => d !== tokenDigest);
    others.sort((a, b) => this.#sessions.get(a)!.createdAt.getTime() - this.#sessions.get(b)!.createdAt.getTime());
    const ended = others.slice(0, digests.size - maxPerUser);
    for (const digest of ended) this.#remove(digest);
    this.revocations.publish(ended);
  }

  async findWithUser(tokenDigest: string): Promise<SessionWithUser | null> {
    const session = this.#sessions.get(tokenDigest);
    const record = session ? this.#users.byId.get(session.userId) : undefined;
    if (!session || !record) return null;
    return { user: { id: record.id, name: record.name, email: record.email }, expiresAt: session.expiresAt };
  }

  async delete(tokenDigest: string): Promise<{ readonly expiresAt: Date } | null> {
    const session = this.#remove(tokenDigest);
    if (!session) return null;
    this.revocations.publish([tokenDigest]);
    return { expiresAt: session.expiresAt };
  }

  async deleteExpired(now: Date): Promise<number> {
    const gone: string[] = [];
    const count = deleteWhere(this.#sessions, (s, digest) => {
      const expired = s.expiresAt.getTime() <= now.getTime();
      if (expired) {
        gone.push(digest);
        this.#unindex(s.userId, digest);
      }
      return expired;
    });
    this.revocations.publish(gone);
    return count;
  }

  /** How many sessions are kept, expired ones included (for tests of the sweep). */
  get size(): number {
    return this.#sessions.size;
  }

  #remove(digest: string): Session | undefined {
    const session = this.#sessions.get(digest);
    if (!session) return undefined;
    this.#sessions.delete(digest);
    this.#unindex(session.userId, digest);
    return session;
  }

  #unindex(userId: number, digest: string): void {
    const digests = this.#byUser.get(userId);
    if (!digests) return;
    digests.delete(digest);
    if (digests.size === 0) this.#byUser.delete(userId);
  }
}
