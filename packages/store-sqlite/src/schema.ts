import { sql, type ColumnType, type Generated, type Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import type { FactorKind, MailKind, PasskeyChallengePurpose } from '@sl-accounts/service/core';

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
  readonly totp_factors: { user_id: number; sealed_secret: string; enabled: number; last_used_step: number | null; created_at: Time };
  readonly recovery_codes: { user_id: number; code_digest: string };
  readonly login_challenges: { token_digest: string; user_id: number; credential_generation: number; failures: number; created_at: Time; expires_at: Time };
  readonly step_ups: { session_digest: string; kind: FactorKind; verified_at: Time };
  /** `transports` is a JSON array; `public_key` a blob. */
  readonly passkeys: { id: string; user_id: number; name: string; public_key: Uint8Array; counter: number; transports: string; created_at: Time; last_used_at: ColumnType<number | null, Date | null, Date | null> };
  readonly passkey_challenges: { digest: string; purpose: PasskeyChallengePurpose; user_id: number | null; created_at: Time; expires_at: Time };
}

/** The order claims take the kinds in (core's MAIL_KINDS), as the outbox's claim index has it. */
export const KIND_RANK = "(case kind when 'security' then 0 when 'unverified' then 1 else 2 end)";

/**
 * Migrations, in the order they apply (Kysely's Migrator); a released one never changes, a new one is
 * added below. The first is the schema of store-postgres's first eleven (the same tables, columns,
 * checks and indexes), written at once: this store had no older schema to move from. Its foreign
 * keys cascade, so a deleted user takes their sessions and tokens (`PRAGMA foreign_keys` is on).
 */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial': { up: (db) => run(db, INITIAL) },
  // Second factors (ADRs 43 and 44), as store-postgres's 0012: a TOTP factor per account (its secret
  // sealed by the core), recovery codes as digests, login challenges bound to a generation, step-ups
  // per session; each goes with its account (or session).
  '0002_second_factor': { up: (db) => run(db, SECOND_FACTOR) },
  '0003_passkeys': { up: (db) => run(db, PASSKEYS) },
};

/** Runs each statement of `text` (separated by `;` at a line's end) through Kysely, in order. */
async function run(db: Kysely<unknown>, text: string): Promise<void> {
  for (const statement of text.split(/;\n/).map((s) => s.trim()).filter(Boolean)) await sql.raw(statement).execute(db);
}

const HEX64 = (column: string) => `check (length(${column}) = 64 and ${column} not glob '*[^0-9a-f]*')`;

const INITIAL = `
create table users (id integer primary key autoincrement, name text not null, email text not null,
  password_hash text not null check (password_hash glob '$[a-z0-9-]*$*'),
  email_verified integer not null default 0 check (email_verified in (0, 1)),
  credential_generation integer not null default 0 check (credential_generation >= 0), created_at integer not null);
create unique index users_email_lower_key on users (lower(email));
create table sessions (token_digest text primary key ${HEX64('token_digest')}, id text not null unique,
  user_id integer not null references users (id) on delete cascade, created_at integer not null, expires_at integer not null);
create index sessions_expires_at_idx on sessions (expires_at);
create index sessions_user_id_idx on sessions (user_id);
create table password_resets (email text primary key, user_id integer references users (id) on delete cascade,
  credential_generation integer, token_digest text not null unique ${HEX64('token_digest')},
  created_at integer not null, expires_at integer not null,
  constraint password_resets_generation_check check ((user_id is null) = (credential_generation is null)));
create index password_resets_expires_at_idx on password_resets (expires_at);
create index password_resets_user_id_idx on password_resets (user_id);
create table email_tokens (user_id integer primary key references users (id) on delete cascade,
  token_digest text not null unique ${HEX64('token_digest')}, purpose text not null check (purpose in ('verify', 'change')),
  email text not null, credential_generation integer not null, created_at integer not null, expires_at integer not null);
create index email_tokens_expires_at_idx on email_tokens (expires_at);
create table contact_messages (id integer primary key autoincrement, name text not null, email text not null,
  message text not null, client_ip text not null, user_agent text, received_at integer not null);
create table rate_limit_windows (key text primary key, count integer not null check (count >= 0), reset_at integer not null);
create index rate_limit_windows_reset_at_idx on rate_limit_windows (reset_at);
create table mail_outbox (id text primary key, recipient text, subject text not null, body text not null, reply_to text,
  kind text not null check (kind in ('contact', 'unverified', 'security')), created_at integer not null,
  due_at integer not null, attempts integer not null default 0 check (attempts >= 0), last_error text);
create index mail_outbox_kind_due_at_idx on mail_outbox (${KIND_RANK}, due_at);
create table device_keys (id integer primary key check (id = 1), key text not null check (length(key) >= 32), created_at integer not null);
`;

const SECOND_FACTOR = `
create table totp_factors (user_id integer primary key references users (id) on delete cascade,
  sealed_secret text not null check (sealed_secret like 'v1.%'), enabled integer not null check (enabled in (0, 1)),
  last_used_step integer check (last_used_step >= 0), created_at integer not null);
create table recovery_codes (user_id integer not null references users (id) on delete cascade,
  code_digest text not null ${HEX64('code_digest')}, primary key (user_id, code_digest));
create table login_challenges (token_digest text primary key ${HEX64('token_digest')},
  user_id integer not null references users (id) on delete cascade, credential_generation integer not null,
  failures integer not null check (failures >= 0), created_at integer not null, expires_at integer not null);
create index login_challenges_expires_at_idx on login_challenges (expires_at);
create index login_challenges_user_id_idx on login_challenges (user_id);
create table step_ups (session_digest text primary key references sessions (token_digest) on delete cascade,
  kind text not null check (kind in ('totp', 'recovery', 'passkey')), verified_at integer not null);
`;

// As Postgres's 0013_passkeys: transports as a JSON array, the public key a blob.
const PASSKEYS = `
create table passkeys (id text primary key check (length(id) <= 1364 and id not glob '*[^A-Za-z0-9_-]*'),
  user_id integer not null references users (id) on delete cascade, name text not null, public_key blob not null,
  counter integer not null check (counter >= 0), transports text not null, created_at integer not null, last_used_at integer);
create index passkeys_user_id_idx on passkeys (user_id);
create table passkey_challenges (digest text primary key ${HEX64('digest')},
  purpose text not null check (purpose in ('register', 'sign-in', 'second-factor', 'step-up')),
  user_id integer references users (id) on delete cascade, created_at integer not null, expires_at integer not null);
create index passkey_challenges_expires_at_idx on passkey_challenges (expires_at);
create index passkey_challenges_user_id_idx on passkey_challenges (user_id);
`;

/**
 * Applies pending migrations with Kysely's Migrator and returns their names. One process holds the
 * file (see `open`), so no other migrates at the same time.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<readonly string[]> {
  const { error, results = [] } = await new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } }).migrateToLatest();
  if (error) throw error;
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
