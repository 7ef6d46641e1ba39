import type { NewUser, User, UserRecord, UserStore } from '@sl/core';

/**
 * The users of one memory store. MemoryUserStore writes them; MemorySessionStore reads them for its
 * join. Private to this package (the entry does not export it), so the adapters offer the ports only.
 */
export class UserTable {
  readonly byId = new Map<number, UserRecord>();
  readonly idByEmail = new Map<string, number>();
  nextId = 1;
}

export class MemoryUserStore implements UserStore {
  readonly #table: UserTable;

  constructor(table: UserTable) {
    this.#table = table;
  }

  async insert(user: NewUser): Promise<User | null> {
    const table = this.#table;
    // Check and insert happen in one synchronous step, so concurrent inserts cannot both win.
    if (table.idByEmail.has(user.email)) return null;
    const record: UserRecord = { id: table.nextId++, name: user.name, email: user.email, passwordHash: user.passwordHash };
    table.byId.set(record.id, record);
    table.idByEmail.set(record.email, record.id);
    return { id: record.id, name: record.name, email: record.email };
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const id = this.#table.idByEmail.get(email);
    return id === undefined ? null : (this.#table.byId.get(id) ?? null);
  }

  async updatePasswordHash(userId: number, passwordHash: string): Promise<void> {
    const record = this.#table.byId.get(userId);
    if (record) this.#table.byId.set(userId, { ...record, passwordHash });
  }
}
