import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import type { Database } from './database.ts';

/** The order claims take the kinds in (core's MAIL_KINDS): the expression of the outbox's claim index. */
export const KIND_RANK = "case kind when 'security' then 0 when 'unverified' then 1 else 2 end";

/**
 * Migrations, in the order they apply. Names sort lexically; a released migration never changes,
 * a new one is added below it.
 */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial': {
    // `db` is untyped on purpose: a migration sees the schema as it was then, not today's `Database`.
    async up(db) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        // A PHC string (`$id$…`), so a plain-text password can never be written by mistake.
        .addColumn('password_hash', 'text', (c) => c.notNull().check(sql`password_hash ~ '^\\$[a-z0-9-]+\\$'`))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .execute();
      // Case-insensitive uniqueness, even if a caller ever forgets to lower-case.
      await db.schema.createIndex('users_email_lower_key').on('users').expression(sql`lower(email)`).unique().execute();

      await db.schema
        .createTable('sessions')
        .addColumn('token_digest', 'text', (c) => c.primaryKey().check(sql`token_digest ~ '^[0-9a-f]{64}$'`))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute();
      // The primary key serves /api/me; these serve the sweep and the foreign key's cascade.
      await db.schema.createIndex('sessions_expires_at_idx').on('sessions').column('expires_at').execute();
      await db.schema.createIndex('sessions_user_id_idx').on('sessions').column('user_id').execute();

      await db.schema
        .createTable('contact_messages')
        .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('client_ip', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text')
        .addColumn('received_at', 'timestamptz', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('rate_limit_windows')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('count', 'integer', (c) => c.notNull().check(sql`count > 0`))
        .addColumn('reset_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rate_limit_windows_reset_at_idx').on('rate_limit_windows').column('reset_at').execute();
    },
  },
  '0002_rate_limit_refund': {
    // RateLimiter.refund takes a count back, so a window may hold zero requests (a login that succeeded).
    async up(db) {
      await sql`alter table rate_limit_windows drop constraint rate_limit_windows_count_check, add constraint rate_limit_windows_count_check check (count >= 0)`.execute(db);
    },
  },
  '0003_session_revocations': {
    // The database itself tells every listening process which sessions went, whoever removed them:
    // a logout, the sweep, another process, a statement typed in psql. Notifications are sent on
    // commit only, so a rolled-back delete says nothing. The channel is the feed's (revocation-feed.ts).
    async up(db) {
      // Digests (64 hex digits, no commas) joined by commas, 100 to a notification (6,499 bytes, under
      // NOTIFY's 8,000-byte payload limit); past 12,000 rows one '*' says more for less.
      await sql`
        create function sl_notify_sessions_revoked() returns trigger language plpgsql as $$
        begin
          if (select count(*) from gone) > 12000 then
            perform pg_notify('sl_session_revocations', '*');
          else
            perform pg_notify('sl_session_revocations', string_agg(token_digest, ','))
              from (select token_digest, (row_number() over () - 1) / 100 as chunk from gone) as numbered
              group by chunk;
          end if;
          return null;
        end
        $$`.execute(db);
      await sql`
        create function sl_notify_all_sessions_revoked() returns trigger language plpgsql as $$
        begin
          perform pg_notify('sl_session_revocations', '*');
          return null;
        end
        $$`.execute(db);
      // One statement-level trigger per event: transition tables allow no more. An update names the
      // old digests, the only ones a cache can hold.
      await sql`create trigger sessions_revoked_on_delete after delete on sessions referencing old table as gone for each statement execute function sl_notify_sessions_revoked()`.execute(db);
      await sql`create trigger sessions_revoked_on_update after update on sessions referencing old table as gone for each statement execute function sl_notify_sessions_revoked()`.execute(db);
      await sql`create trigger sessions_revoked_on_truncate after truncate on sessions for each statement execute function sl_notify_all_sessions_revoked()`.execute(db);
      // A session carries its user's name and e-mail: a change to those makes every cached one
      // suspect. A new password hash changes nothing a session shows (and a rehash at login must not
      // flush every cache); a deleted user's sessions go by the cascade, which the delete trigger hears.
      await sql`create trigger users_changed_revokes_sessions after update of id, name, email on users for each statement execute function sl_notify_all_sessions_revoked()`.execute(db);
    },
  },
  '0004_mail_outbox': {
    // Mails waiting to be sent, written in the same transaction as what caused them (outbox.ts).
    // A sent mail's row is deleted, so the table holds only what is still owed.
    async up(db) {
      await db.schema
        .createTable('mail_outbox')
        .addColumn('id', 'uuid', (c) => c.primaryKey())
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('reply_to', 'text')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        // When the next attempt may start; a claim moves it past its lease, a failure to the retry time.
        .addColumn('due_at', 'timestamptz', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0).check(sql`attempts >= 0`))
        .addColumn('last_error', 'text')
        .execute();
      await db.schema.createIndex('mail_outbox_due_at_idx').on('mail_outbox').column('due_at').execute();
    },
  },
  '0005_password_reset': {
    // One row per account (the primary key): a new request replaces the old token. A deleted user's
    // token goes with the user.
    async up(db) {
      await db.schema
        .createTable('password_resets')
        .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('token_digest', 'text', (c) => c.notNull().unique().check(sql`token_digest ~ '^[0-9a-f]{64}$'`))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('password_resets_expires_at_idx').on('password_resets').column('expires_at').execute();
    },
  },
  '0006_session_ids': {
    // The id a user sees in the list of their sessions and ends one by: random, so it says nothing
    // of the token, of its digest, or of how many sessions there are. Existing sessions get one too.
    async up(db) {
      await sql`alter table sessions add column id text not null default gen_random_uuid()::text`.execute(db);
      await db.schema.createIndex('sessions_id_key').on('sessions').column('id').unique().execute();
    },
  },
  '0007_device_cookies': {
    // The key that signs device cookies: one row, written by the first process that needs it, so
    // every process on the database honours the cookies any of them issued.
    async up(db) {
      await db.schema
        .createTable('device_keys')
        .addColumn('id', 'smallint', (c) => c.primaryKey().check(sql`id = 1`))
        .addColumn('key', 'text', (c) => c.notNull().check(sql`length(key) >= 32`))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .execute();
    },
  },
  '0008_credential_generation': {
    // The account's credential generation (a security stamp): a password change and a completed reset
    // move it on in the transaction that ends the sessions; a session is inserted only while the
    // generation its login read is current, under a lock a change must wait for (session-store.ts); a
    // reset token works only under the generation it was requested under. A new account starts at 0.
    // The users-update trigger of 0003 fires on `update of id, name, email` only: neither a
    // generation's move nor a rehash at login flushes every session cache, and the sessions a move
    // ends are deleted in its transaction, which the sessions-delete trigger reports one by one.
    async up(db) {
      await sql`alter table users add column credential_generation integer not null default 0 check (credential_generation >= 0)`.execute(db);
      // Tokens stored before this migration belong to accounts still at 0. No default afterwards: a
      // token written without its generation would be a store bug, and fails here.
      await sql`alter table password_resets add column credential_generation integer not null default 0`.execute(db);
      await sql`alter table password_resets alter column credential_generation drop default`.execute(db);
    },
  },
  '0009_reset_same_work_and_mail_kind': {
    // A reset request writes the same rows whether or not its address is an account's
    // (reset-store.ts): tokens are kept by address, bound to the account when there is one (a token
    // bound to none opens nothing); an outbox row without a recipient is a stand-in that the next
    // claim removes unsent. And each mail says what it is for, so contact mail is told from
    // security mail (kept first, sent first): before this version, contact mail was the only mail
    // with a Reply-To.
    async up(db) {
      await sql`alter table password_resets add column email text`.execute(db);
      await sql`update password_resets r set email = u.email from users u where u.id = r.user_id`.execute(db);
      await sql`alter table password_resets drop constraint password_resets_pkey`.execute(db);
      await sql`alter table password_resets alter column email set not null, alter column user_id drop not null, add primary key (email)`.execute(db);
      // A token bound to no account is bound to no generation either; one of an account always is.
      await sql`alter table password_resets alter column credential_generation drop not null, add constraint password_resets_generation_check check ((user_id is null) = (credential_generation is null))`.execute(db);
      await db.schema.createIndex('password_resets_user_id_idx').on('password_resets').column('user_id').execute();
      await sql`alter table mail_outbox alter column recipient drop not null, add column kind text not null default 'security' check (kind in ('contact', 'security'))`.execute(db);
      await sql`update mail_outbox set kind = 'contact' where reply_to is not null`.execute(db);
      // Claims take security mail first, each kind by due time (outbox.ts).
      await sql`create index mail_outbox_kind_due_at_idx on mail_outbox ((kind = 'contact'), due_at)`.execute(db);
    },
  },
  '0010_email_verification': {
    // Whether the account's address is proven, and the tokens of the links that prove one: one row
    // per account (the primary key: the newest link wins, whatever it is for), single-use, gone with
    // the account. A `change` token carries the address the account moves to; the unique index on
    // lower(email) decides, at the move, whether that address is still free.
    async up(db) {
      await sql`alter table users add column email_verified boolean not null default false`.execute(db);
      await db.schema
        .createTable('email_tokens')
        .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('token_digest', 'text', (c) => c.notNull().unique().check(sql`token_digest ~ '^[0-9a-f]{64}$'`))
        .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('verify', 'change')`))
        .addColumn('email', 'text', (c) => c.notNull())
        // The account's credential generation when the link was asked for: a change of address
        // works only while it is current (a password change or a reset voids a pending move).
        .addColumn('credential_generation', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('email_tokens_expires_at_idx').on('email_tokens').column('expires_at').execute();
      // A session shows its user's name, address and whether the address is verified: a change of
      // them makes that user's cached sessions suspect, as 0003 said, but no one else's. Until now
      // nothing changed a name or an address, so the trigger could say '*'; a change of name is any
      // user's now (PATCH /api/me), and '*' would let each one empty every process's cache. The
      // digests go as 0003's do: 100 to a notification, '*' past 12,000. A row trigger (a column
      // list allows no transition table), and only when one of those columns really changed.
      await sql`
        create function sl_notify_user_sessions_revoked() returns trigger language plpgsql as $$
        begin
          if (select count(*) from sessions where user_id = old.id) > 12000 then
            perform pg_notify('sl_session_revocations', '*');
          else
            perform pg_notify('sl_session_revocations', string_agg(token_digest, ','))
              from (select token_digest, (row_number() over () - 1) / 100 as chunk from sessions where user_id = old.id) as numbered
              group by chunk;
          end if;
          return null;
        end
        $$`.execute(db);
      await sql`drop trigger users_changed_revokes_sessions on users`.execute(db);
      await sql`
        create trigger users_changed_revokes_sessions after update of id, name, email, email_verified on users for each row
        when (old.id is distinct from new.id or old.name is distinct from new.name or old.email is distinct from new.email or old.email_verified is distinct from new.email_verified)
        execute function sl_notify_user_sessions_revoked()`.execute(db);
    },
  },
  '0011_mail_kind_unverified': {
    // A third kind of mail: `unverified`, to an address nobody has proven (a new account's
    // verification link, which any stranger can cause), sent after the security mail of existing
    // accounts and before contact mail (outbox.ts). Rows queued before are security or contact mail.
    async up(db) {
      await sql`alter table mail_outbox drop constraint mail_outbox_kind_check, add constraint mail_outbox_kind_check check (kind in ('contact', 'unverified', 'security'))`.execute(db);
      await sql`drop index mail_outbox_kind_due_at_idx`.execute(db);
      await sql`create index mail_outbox_kind_due_at_idx on mail_outbox ((${sql.raw(KIND_RANK)}), due_at)`.execute(db);
    },
  },
  '0012_second_factor': {
    // Second factors (docs/decisions/0043-login-challenge-and-statuses.md, 0044): one TOTP factor per
    // account (pending or on) whose secret the core sealed (AES-256-GCM under SECRETS_KEY) and the
    // last time step a code was accepted for (the replay guard, a compare-and-set); recovery codes
    // as digests; login challenges as digests, bound to the generation the password was checked
    // under; step-ups per session. Everything goes with its account (or session).
    async up(db) {
      await sql`create table totp_factors (
        user_id integer primary key references users(id) on delete cascade,
        sealed_secret text not null check (sealed_secret like 'v1.%'),
        enabled boolean not null,
        last_used_step bigint check (last_used_step >= 0),
        created_at timestamptz not null)`.execute(db);
      await sql`create table recovery_codes (
        user_id integer not null references users(id) on delete cascade,
        code_digest text not null check (code_digest ~ '^[0-9a-f]{64}$'),
        primary key (user_id, code_digest))`.execute(db);
      await sql`create table login_challenges (
        token_digest text primary key check (token_digest ~ '^[0-9a-f]{64}$'),
        user_id integer not null references users(id) on delete cascade,
        credential_generation integer not null,
        failures integer not null check (failures >= 0),
        created_at timestamptz not null,
        expires_at timestamptz not null)`.execute(db);
      await sql`create index login_challenges_expires_at_idx on login_challenges (expires_at)`.execute(db);
      await sql`create index login_challenges_user_id_idx on login_challenges (user_id)`.execute(db);
      await sql`create table step_ups (
        session_digest text primary key references sessions(token_digest) on delete cascade,
        kind text not null check (kind in ('totp', 'recovery', 'passkey')),
        verified_at timestamptz not null)`.execute(db);
    },
  },
  '0013_passkeys': {
    // Passkeys (WebAuthn credentials) and their challenges (docs/decisions/0045-passkeys.md). A
    // credential ID is at most 1,023 bytes, 1,364 base64url characters. The signature counter is an
    // unsigned 32-bit number: bigint. A challenge is stored as its SHA-256 digest and taken once (a
    // DELETE … RETURNING: of concurrent takes, also from several processes, one gets the row).
    async up(db) {
      await db.schema
        .createTable('passkeys')
        .addColumn('id', 'text', (c) => c.primaryKey().check(sql`id ~ '^[A-Za-z0-9_-]+$' and length(id) <= 1364`))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('public_key', 'bytea', (c) => c.notNull())
        .addColumn('counter', 'bigint', (c) => c.notNull().check(sql`counter >= 0`))
        .addColumn('transports', sql`text[]`, (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('last_used_at', 'timestamptz')
        .execute();
      await db.schema.createIndex('passkeys_user_id_idx').on('passkeys').column('user_id').execute();
      await db.schema
        .createTable('passkey_challenges')
        .addColumn('digest', 'text', (c) => c.primaryKey().check(sql`digest ~ '^[0-9a-f]{64}$'`))
        .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('register', 'sign-in', 'second-factor', 'step-up')`))
        .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('passkey_challenges_expires_at_idx').on('passkey_challenges').column('expires_at').execute();
      await db.schema.createIndex('passkey_challenges_user_id_idx').on('passkey_challenges').column('user_id').execute();
    },
  },
  '0014_one_time_tokens': {
    // One table of single-use tokens for every purpose (docs/decisions/0054): the rows of the four
    // token tables move in (a reset keeps its address's slot, an e-mail token its account's), each
    // session's step-up moves onto its row, and the old tables go; all in the migration's transaction.
    async up(db) {
      const purposes = sql.join(['password-reset', 'verify-email', 'change-email', 'login', 'passkey-register', 'passkey-sign-in', 'passkey-second-factor', 'passkey-step-up', 'sign-in-state'].map((p) => sql.lit(p)));
      await sql`create table one_time_tokens (
        digest text primary key check (digest ~ '^[0-9a-f]{64}$'),
        purpose text not null check (purpose in (${purposes})),
        user_id integer references users(id) on delete cascade,
        credential_generation integer,
        email text,
        data text check (length(data) <= 8192),
        failures integer not null default 0 check (failures >= 0),
        slot text unique,
        created_at timestamptz not null,
        expires_at timestamptz not null)`.execute(db);
      await sql`create index one_time_tokens_expires_at_idx on one_time_tokens (expires_at)`.execute(db);
      await sql`create index one_time_tokens_user_id_idx on one_time_tokens (user_id, created_at)`.execute(db);
      await sql`insert into one_time_tokens (digest, purpose, user_id, credential_generation, email, slot, created_at, expires_at)
        select token_digest, 'password-reset', user_id, credential_generation, email, 'reset:' || email, created_at, expires_at from password_resets`.execute(db);
      await sql`insert into one_time_tokens (digest, purpose, user_id, credential_generation, email, slot, created_at, expires_at)
        select token_digest, purpose || '-email', user_id, credential_generation, email, 'email:' || user_id, created_at, expires_at from email_tokens`.execute(db);
      await sql`insert into one_time_tokens (digest, purpose, user_id, credential_generation, failures, created_at, expires_at)
        select token_digest, 'login', user_id, credential_generation, failures, created_at, expires_at from login_challenges`.execute(db);
      await sql`insert into one_time_tokens (digest, purpose, user_id, created_at, expires_at)
        select digest, 'passkey-' || purpose, user_id, created_at, expires_at from passkey_challenges`.execute(db);
      await sql`alter table sessions add column step_up_kind text check (step_up_kind in ('totp', 'recovery', 'passkey')), add column step_up_at timestamptz`.execute(db);
      await sql`update sessions s set step_up_kind = u.kind, step_up_at = u.verified_at from step_ups u where u.session_digest = s.token_digest`.execute(db);
      await sql`drop table step_ups, login_challenges, passkey_challenges, email_tokens, password_resets`.execute(db);
    },
  },
  '0015_identities': {
    // Identities at identity providers (issue 42; docs/decisions/0056-identity-linking.md): unique by
    // issuer and subject, so an identity belongs to at most one account; one per account and provider.
    async up(db) {
      await db.schema
        .createTable('identities')
        .addColumn('issuer', 'text', (c) => c.notNull().check(sql`length(issuer) <= 2000`))
        .addColumn('subject', 'text', (c) => c.notNull().check(sql`length(subject) <= 255`))
        .addColumn('provider', 'text', (c) => c.notNull().check(sql`provider ~ '^[a-z][a-z0-9]{0,31}$'`))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('email', 'text')
        .addColumn('linked_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('identities_pkey', ['issuer', 'subject'])
        .execute();
      await db.schema.createIndex('identities_user_id_provider_key').on('identities').columns(['user_id', 'provider']).unique().execute();
    },
  },
};

// 0014 and 0015 are left to the single-use tokens and identities added beside this one.
Object.assign(MIGRATIONS, {
  '0016_activity': {
    // The activity log and the account lock (issue 43, docs/decisions/0057-activity-log.md). Events
    // stay when their account goes (no foreign key): the operator's record of a deletion; the sweep
    // deletes them after ACTIVITY_RETENTION_DAYS. A failed sign-in is counted on the row of its
    // account's hour (`summary`, unique), so a flood does not grow the table.
    async up(db: Kysely<unknown>) {
      await sql`alter table users add column locked boolean not null default false`.execute(db);
      await sql`create table activity (
        id bigint generated always as identity primary key,
        user_id integer,
        type text not null,
        at timestamptz not null,
        client_ip text,
        user_agent text,
        actor text,
        details jsonb not null,
        count integer not null default 1 check (count >= 1),
        summary text unique)`.execute(db);
      await sql`create index activity_user_id_idx on activity (user_id, id)`.execute(db);
      await sql`create index activity_type_idx on activity (type, id)`.execute(db);
      await sql`create index activity_at_idx on activity (at)`.execute(db);
    },
  },
} satisfies Record<string, Migration>);

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Our own advisory-lock key (an int4, so it cannot meet Kysely's int8 one). */
const MIGRATION_LOCK_KEY = 0x736c_6d67;

/**
 * Applies pending migrations (up to `target`, a test's older schema, or all) and returns their names. Everything, the bookkeeping tables included,
 * runs in one transaction under a transaction-scoped advisory lock: processes that start at once
 * queue up, and each later one finds nothing left to do. No statement timeout applies.
 */
export async function migrateToLatest(db: Kysely<Database>, target?: string): Promise<readonly string[]> {
  if (target === undefined && (await isCurrent(db))) return [];
  return db.transaction().execute(async (trx) => {
    // A migration may run long, or wait here for another process's: the connections' statement
    // timeout is for requests, not for this.
    await sql`set local statement_timeout = 0`.execute(trx);
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(trx);
    const migrator = new Migrator({ db: trx, provider });
    const { error, results = [] } = await (target === undefined ? migrator.migrateToLatest() : migrator.migrateTo(target));
    if (error) throw error;
    return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
  });
}

/**
 * Whether every migration this version knows is applied already, and no other: the common start, on
 * a database this version (or a parallel start) migrated. Two reads, without the transaction, the
 * lock and the Migrator's own bookkeeping statements, which cost a start on PGlite ~40-150 ms
 * (docs/decisions/0016-stores.md). Anything else (no table yet, a migration missing, one this version does not
 * know) goes the full way, where the Migrator applies or refuses as before.
 */
async function isCurrent(db: Kysely<Database>): Promise<boolean> {
  // Resolved as the Migrator's own unqualified statements resolve it, through the search path.
  const { rows } = await sql<{ present: boolean }>`select to_regclass('kysely_migration') is not null as present`.execute(db);
  if (!rows[0]?.present) return false;
  const applied = (await sql<{ name: string }>`select name from kysely_migration`.execute(db)).rows.map((r) => r.name).sort();
  const known = Object.keys(MIGRATIONS).sort();
  return applied.length === known.length && applied.every((name, i) => name === known[i]);
}
