import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { AccountMail, MailOutbox, OutgoingMail, QueuedMail } from '@sl-accounts/core';
import type { Database } from './database.ts';
import { KIND_RANK } from './migrations.ts';

/**
 * Queues `mail`, due at once. Other store methods call it with their own transaction, so the mail is
 * written with what caused it, or not at all. Within this package only (the entry does not export it).
 */
export async function enqueueMail(db: Kysely<Database> | Transaction<Database>, mail: OutgoingMail, now: Date): Promise<void> {
  await db
    .insertInto('mail_outbox')
    .values({ id: randomUUID(), recipient: mail.to, subject: mail.subject, body: mail.text, reply_to: mail.replyTo ?? null, kind: mail.kind ?? 'security', created_at: now, due_at: now })
    .execute();
}

/**
 * Queues `notice` to the address of the user `userId` as the transaction `trx` reads it (nothing when
 * there is no such user): a security notice, written with the change it reports.
 */
export async function enqueueNotice(trx: Transaction<Database>, userId: number, notice: AccountMail): Promise<void> {
  await trx
    .insertInto('mail_outbox')
    .columns(['id', 'recipient', 'subject', 'body', 'reply_to', 'kind', 'created_at', 'due_at'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select((s) => [
          s.val(randomUUID()).as('id'),
          'email',
          s.val(notice.subject).as('subject'),
          s.val(notice.text).as('body'),
          s.val(notice.replyTo ?? null).as('reply_to'),
          s.val(notice.kind ?? 'security').as('kind'),
          s.val(notice.queuedAt).as('created_at'),
          s.val(notice.queuedAt).as('due_at'),
        ])
        .where('id', '=', userId),
    )
    .execute();
}

/** Longest error text kept per mail: enough for an SMTP reply, bounded whatever a server answers. */
const ERROR_CHARS = 1_000;

export class PostgresMailOutbox implements MailOutbox {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async claim(now: Date, options: { readonly limit: number; readonly leaseMs: number }): Promise<readonly QueuedMail[]> {
    const leaseEnd = new Date(now.getTime() + options.leaseMs);
    // One statement: the rows are locked as they are picked, and SKIP LOCKED lets another worker's
    // claim pass over them instead of waiting and then taking the same rows. The due stand-ins
    // (rows without a recipient, see reset-store.ts) go in the same statement, unsent.
    const rows = await this.#db
      .with('stand_ins', (db) =>
        db
          .deleteFrom('mail_outbox')
          .where('id', 'in', (eb) => eb.selectFrom('mail_outbox').select('id').where('recipient', 'is', null).where('due_at', '<=', now).forUpdate().skipLocked()),
      )
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
