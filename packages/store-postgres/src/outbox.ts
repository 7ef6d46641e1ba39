import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { ContactRepository, MailKind, MailOutbox, OutboxRepository, QueuedMail } from '@sl-accounts/service/core';
import { statement } from './compiled.ts';
import type { Database } from './database.ts';
import { KIND_RANK } from './migrations.ts';
import type { Unit } from './unit.ts';

// A stand-in (no recipient) is one row like a mail: the same statement, the same work.
const addMail = statement(8, (db, id: string, recipient: string | null, subject: string, body: string, replyTo: string | null, kind: MailKind, createdAt: Date, dueAt: Date) =>
  db.insertInto('mail_outbox').values({ id, recipient, subject, body, reply_to: replyTo, kind, created_at: createdAt, due_at: dueAt }),
);
const addContact = statement(6, (db, name: string, email: string, message: string, clientIp: string, userAgent: string | null, receivedAt: Date) =>
  db.insertInto('contact_messages').values({ name, email, message, client_ip: clientIp, user_agent: userAgent, received_at: receivedAt }),
);

/** The outbox as a unit of work writes to it. */
export function outboxRepository({ run }: Unit): OutboxRepository {
  return {
    async add(mail) {
      await addMail(run, randomUUID(), mail.to, mail.subject, mail.text, mail.replyTo ?? null, mail.kind ?? 'security', mail.queuedAt, mail.queuedAt);
    },
  };
}

/** Contact messages: written, never read back. */
export function contactRepository({ run }: Unit): ContactRepository {
  return {
    async add(message) {
      await addContact(run, message.name, message.email, message.message, message.clientIp, message.userAgent, message.receivedAt);
    },
  };
}

/** Longest error text kept per mail: enough for an SMTP reply, bounded whatever a server answers. */
const ERROR_CHARS = 1_000;

/** The mail worker's side of the outbox; `add` is the repository's, outside any unit of work. */
export class PostgresMailOutbox implements MailOutbox {
  readonly #db: Kysely<Database>;
  readonly #queue: OutboxRepository;

  constructor(db: Kysely<Database>, queue: OutboxRepository) {
    this.#db = db;
    this.#queue = queue;
  }

  add: OutboxRepository['add'] = (mail) => this.#queue.add(mail);

  async claim(now: Date, options: { readonly limit: number; readonly leaseMs: number }): Promise<readonly QueuedMail[]> {
    const leaseEnd = new Date(now.getTime() + options.leaseMs);
    // One statement: the rows are locked as they are picked, and SKIP LOCKED lets another worker's
    // claim pass over them instead of waiting and then taking the same rows. Stand-ins (rows without
    // a recipient) are never picked; the sweep removes them.
    const rows = await this.#db
      .updateTable('mail_outbox')
      .set((eb) => ({ due_at: leaseEnd, attempts: eb('attempts', '+', 1) }))
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('mail_outbox')
          .select('id')
          .where('recipient', 'is not', null)
          .where('due_at', '<=', now)
          // Security mail first, contact mail last: after an outage the mail of existing accounts
          // does not wait behind a backlog of other mail. The index on (KIND_RANK, due_at) gives
          // this order.
          .orderBy(sql.raw(KIND_RANK))
          .orderBy('due_at')
          .limit(options.limit)
          .forUpdate()
          .skipLocked(),
      )
      .returning(['id', 'recipient', 'subject', 'body', 'reply_to', 'kind', 'created_at', 'attempts'])
      .execute();
    // RETURNING keeps no order; the claim's is the queue's.
    rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
    return rows.map((row) => ({
      id: row.id,
      // Never null: the claim picks rows with a recipient only.
      to: row.recipient!,
      subject: row.subject,
      text: row.body,
      ...(row.reply_to === null ? {} : { replyTo: row.reply_to }),
      kind: row.kind,
      attempts: row.attempts,
      createdAt: row.created_at,
    }));
  }

  async markSent(id: string): Promise<void> {
    await this.#db.deleteFrom('mail_outbox').where('id', '=', id).execute();
  }

  async retryLater(id: string, attempts: number, retryAt: Date, error: string): Promise<void> {
    await this.#db
      .updateTable('mail_outbox')
      .set({ due_at: retryAt, last_error: error.slice(0, ERROR_CHARS) })
      .where('id', '=', id)
      .where('attempts', '=', attempts)
      .execute();
  }

  async depth(): Promise<number> {
    const { count } = await this.#db
      .selectFrom('mail_outbox')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('recipient', 'is not', null)
      .executeTakeFirstOrThrow();
    return Number(count);
  }
}
