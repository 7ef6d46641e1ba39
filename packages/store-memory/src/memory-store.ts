import type {
  ContactMessage,
  ContactStore,
  NewSession,
  NewUser,
  RateLimitHit,
  RateLimiter,
  RateLimitRule,
  SessionStore,
  SessionWithUser,
  Store,
  User,
  UserRecord,
  UserStore,
} from '@sl/core';

/**
 * In-memory adapters. Every method is async like a real store's, so a missing `await` fails here
 * too. State lives in Maps and is lost with the process; expired entries go at the next sweep.
 */

export class MemoryUserStore implements UserStore {
  private readonly byId = new Map<number, UserRecord>();
  private readonly idByEmail = new Map<string, number>();
  private nextId = 1;

  async insert(user: NewUser): Promise<User | null> {
    // Check and insert happen in one synchronous step, so concurrent inserts cannot both win.
    if (this.idByEmail.has(user.email)) return null;
    const record: UserRecord = { id: this.nextId++, name: user.name, email: user.email, passwordHash: user.passwordHash };
    this.byId.set(record.id, record);
    this.idByEmail.set(record.email, record.id);
    return { id: record.id, name: record.name, email: record.email };
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const id = this.idByEmail.get(email);
    return id === undefined ? null : (this.byId.get(id) ?? null);
  }

  async updatePasswordHash(userId: number, passwordHash: string): Promise<void> {
    const record = this.byId.get(userId);
    if (record) this.byId.set(userId, { ...record, passwordHash });
  }

  /** For the session store's join; not part of the port. */
  findById(id: number): User | null {
    const record = this.byId.get(id);
    return record ? { id: record.id, name: record.name, email: record.email } : null;
  }
}

export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, { readonly userId: number; readonly expiresAt: Date }>();
  private readonly users: MemoryUserStore;

  constructor(users: MemoryUserStore) {
    this.users = users;
  }

  async create(session: NewSession): Promise<void> {
    this.sessions.set(session.tokenDigest, { userId: session.userId, expiresAt: session.expiresAt });
  }

  async findWithUser(tokenDigest: string): Promise<SessionWithUser | null> {
    const session = this.sessions.get(tokenDigest);
    const user = session ? this.users.findById(session.userId) : null;
    return session && user ? { user, expiresAt: session.expiresAt } : null;
  }

  async delete(tokenDigest: string): Promise<{ readonly expiresAt: Date } | null> {
    const session = this.sessions.get(tokenDigest);
    if (!session) return null;
    this.sessions.delete(tokenDigest);
    return { expiresAt: session.expiresAt };
  }

  async deleteExpired(now: Date): Promise<number> {
    return deleteWhere(this.sessions, (s) => s.expiresAt.getTime() <= now.getTime());
  }

  get size(): number {
    return this.sessions.size;
  }
}

/**
 * Keeps the most recent `capacity` messages: a store in memory must stay bounded when a flood of
 * clients posts the public contact form. Use the Postgres store to keep every message.
 */
export class MemoryContactStore implements ContactStore {
  /** The kept messages, oldest first. */
  readonly messages: ContactMessage[] = [];
  readonly capacity: number;
  /** How many older messages were let go to stay within `capacity`. */
  dropped = 0;

  constructor(options: { readonly capacity?: number } = {}) {
    this.capacity = options.capacity ?? 10_000;
  }

  async add(message: ContactMessage): Promise<void> {
    this.messages.push(message);
    if (this.messages.length > this.capacity) {
      this.messages.shift();
      this.dropped++;
    }
  }
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  async consume(key: string, rule: RateLimitRule, now: Date): Promise<RateLimitHit> {
    const t = now.getTime();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= t) {
      window = { count: 0, resetAt: t + rule.windowMs };
      this.windows.set(key, window);
    }
    window.count++;
    return { allowed: window.count <= rule.limit, count: window.count, resetAt: new Date(window.resetAt) };
  }

  async deleteExpired(now: Date): Promise<number> {
    return deleteWhere(this.windows, (w) => w.resetAt <= now.getTime());
  }

  get size(): number {
    return this.windows.size;
  }
}

function deleteWhere<K, V>(map: Map<K, V>, predicate: (value: V) => boolean): number {
  let deleted = 0;
  for (const [key, value] of map) {
    if (predicate(value)) {
      map.delete(key);
      deleted++;
    }
  }
  return deleted;
}

/** The memory adapters under their concrete types, so tests can look inside. */
export interface MemoryStore extends Store {
  readonly users: MemoryUserStore;
  readonly sessions: MemorySessionStore;
  readonly contacts: MemoryContactStore;
  readonly rateLimiter: MemoryRateLimiter;
}

export interface MemoryStoreOptions {
  /** Contact messages kept (the most recent ones); default 10000. */
  readonly contactCapacity?: number;
}

/** A fresh, empty in-memory store: every port the core needs, for tests and embedding. */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const users = new MemoryUserStore();
  return {
    users,
    sessions: new MemorySessionStore(users),
    contacts: new MemoryContactStore(options.contactCapacity === undefined ? {} : { capacity: options.contactCapacity }),
    rateLimiter: new MemoryRateLimiter(),
    ping: async () => {},
    close: async () => {},
  };
}
