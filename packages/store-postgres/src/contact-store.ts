import type { Kysely } from 'kysely';
import type { ContactMessage, ContactStore, OutgoingMail } from '@sl-accounts/core';
import type { Database } from './database.ts';
import { enqueueMail } from './outbox.ts';

export class PostgresContactStore implements ContactStore {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async add(message: ContactMessage, mail: OutgoingMail | null): Promise<void> {
    const insert = this.#db.insertInto('contact_messages').values({
      name: message.name,
      email: message.email,
      message: message.message,
      client_ip: message.clientIp,
      user_agent: message.userAgent,
      received_at: message.receivedAt,
    });
    if (!mail) {
      await insert.execute();
      return;
    }
    // The message and its mail commit together: a stored message is always mailed, and a mail never
    // announces a message that was not stored.
    await this.#db.transaction().execute(async (trx) => {
      await trx.executeQuery(insert.compile());
      await enqueueMail(trx, mail, message.receivedAt);
    });
  }
}
