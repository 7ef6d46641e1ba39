import type { Kysely } from 'kysely';
import type { ContactMessage, ContactStore } from '@sl/core';
import type { Database } from './database.ts';

export class PostgresContactStore implements ContactStore {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async add(message: ContactMessage): Promise<void> {
    await this.#db
      .insertInto('contact_messages')
      .values({
        name: message.name,
        email: message.email,
        message: message.message,
        client_ip: message.clientIp,
        user_agent: message.userAgent,
        received_at: message.receivedAt,
      })
      .execute();
  }
}
