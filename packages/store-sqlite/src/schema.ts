import { sql, type ColumnType, type Generated, type Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import type { MailKind } from '@sl-accounts/core';

/**
 * The tables as Kysely sees them (inside this package only). SQLite has no date or boolean type:
 * times are integers (milliseconds since the epoch, UTC) and flags 0 or 1; the repositories convert
 * at their edge, so no column type leaks to the core.
 */
/** A time: read as milliseconds since the epoch, written as a Date (the runner binds its milliseconds). */
type Time = ColumnType<number, Date, Date>;

export interface Database {
  readonly users: { id: Generated<number>; name: string; email: string; password_hash: string; email_verified: Generated<number>; credential_generation: Generated<number>; created_at: Time };
  readonly sessions: { token_digest: string; id: string; user_id: number; created_at: Time; expires_at: Time };
  readonly password_resets: { email: string; user_id: number | null; credential_generation: number | null; token_digest: string; created_at: Time; expires_at: Time };
  readonly email_tokens: { user_id: number; token_digest: string; purpose: 'verify' | 'change'; email: string; credential_generation: number; created_at: Time; expires_at: Time };
  readonly contact_messages: { id: Generated<number>; name: string; email: string; message: string; client_ip: string; user_agent: string | null; received_at: Time };
  readonly rate_limit_windows: { key: string; count: number; reset_at: Time };
  readonly mail_outbox: { id: string; recipient: string | null; subject: string; body: string; reply_to: string | null; kind: MailKind; created_at: Time; due_at: Time; attempts: Generated<number>; last_error: string | null };
  readonly device_keys: { id: number; key: string; created_at: Time };
}

/** The order claims take the kinds in (core's MAIL_KINDS), as the outbox's claim index has it. */
export const KIND_RANK = "(case kind when 'security' then 0 when 'unverified' then 1 else 2 end)";

/**
 * Migrations, in the order they apply; a released one never changes, a new one is added below. The
 * first is the schema of store-postgres's eleven (the same tables, columns, checks and indexes),
 * written at once: this store has no older schema to move from. Its foreign keys cascade, so a
 * deleted user takes their sessions and tokens (`PRAGMA foreign_keys` is on for every connection).
 */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial': {
    async up(db: Kysely<unknown>) {
      const hex64 = (column: string) => sql.raw(`length(${column}) = 64 and ${column} not glob '*[^0-9a-f]*'`);
      await db.schema
        .createTable('users')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()) // never reused
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull().check(sql`password_hash glob '$[a-z0-9-]*$*'`))
        .addColumn('email_verified', 'integer', (c) => c.notNull().defaultTo(0).check(sql`email_verified in (0, 1)`))
        .addColumn('credential_generation', 'integer', (c) => c.notNull().defaultTo(0).check(sql`credential_generation >= 0`))
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('users_email_lower_key').on('users').expression(sql`lower(email)`).unique().execute();
      await db.schema
        .createTable('sessions')
        .addColumn('token_digest', 'text', (c) => c.primaryKey().check(hex64('token_digest')))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('expires_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_expires_at_idx').on('sessions').column('expires_at').execute();
      await db.schema.createIndex('sessions_user_id_idx').on('sessions').column('user_id').execute();
      await db.schema
        .createTable('password_resets')
        .addColumn('email', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('credential_generation', 'integer')
        .addColumn('token_digest', 'text', (c) => c.notNull().unique().check(hex64('token_digest')))
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('expires_at', 'integer', (c) => c.notNull())
        .addCheckConstraint('password_resets_generation_check', sql`(user_id is null) = (credential_generation is null)`)
        .execute();
      await db.schema.createIndex('password_resets_expires_at_idx').on('password_resets').column('expires_at').execute();
      await db.schema.createIndex('password_resets_user_id_idx').on('password_resets').column('user_id').execute();
      await db.schema
        .createTable('email_tokens')
        .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('token_digest', 'text', (c) => c.notNull().unique().check(hex64('token_digest')))
        .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('verify', 'change')`))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('credential_generation', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('expires_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('email_tokens_expires_at_idx').on('email_tokens').column('expires_at').execute();
      await db.schema
        .createTable('contact_messages')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('client_ip', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text')
        .addColumn('received_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('rate_limit_windows')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('count', 'integer', (c) => c.notNull().check(sql`count >= 0`))
        .addColumn('reset_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rate_limit_windows_reset_at_idx').on('rate_limit_windows').column('reset_at').execute();
      await db.schema
        .createTable('mail_outbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('recipient', 'text') // null: a stand-in, never sent
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('reply_to', 'text')
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('contact', 'unverified', 'security')`))
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('due_at', 'integer', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0).check(sql`attempts >= 0`))
        .addColumn('last_error', 'text')
        .execute();
      await db.schema.createIndex('mail_outbox_kind_due_at_idx').on('mail_outbox').expression(sql`${sql.raw(KIND_RANK)}, due_at`).execute();
      await db.schema
        .createTable('device_keys')
        .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
        .addColumn('key', 'text', (c) => c.notNull().check(sql`length(key) >= 32`))
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .execute();
    },
  },
};

/**
 * Applies pending migrations with Kysely's Migrator and returns their names. One process holds the
 * file (see `open`), so no other migrates at the same time.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<readonly string[]> {
  const { error, results = [] } = await new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } }).migrateToLatest();
  if (error) throw error;
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
