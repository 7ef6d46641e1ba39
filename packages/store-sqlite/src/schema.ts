import { sql, type ColumnType, type Generated, type Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import type { FactorKind, MailKind, OneTimeTokenPurpose } from '@sl-accounts/service/core';

/**
 * The tables as Kysely sees them (inside this package only). SQLite has no date or boolean type:
 * times are integers (milliseconds since the epoch, UTC) and flags 0 or 1; the repositories convert
 * at their edge, so no column type leaks to the core.
 */
/** A time: read as milliseconds since the epoch, written as a Date (the runner binds its milliseconds). */
type Time = ColumnType<number, Date, Date>;

export interface Database {
  readonly users: { id: Generated<number>; name: string; email: string; password_hash: string; email_verified: Generated<number>; credential_generation: Generated<number>; created_at: Time; locked: Generated<number> };
  /** `step_up_kind` and `step_up_at`: the session's newest step-up (both `null` before any). */
  readonly sessions: { token_digest: string; id: string; user_id: number; created_at: Time; expires_at: Time; step_up_kind: FactorKind | null; step_up_at: ColumnType<number | null, Date | null, Date | null> };
  /** Single-use tokens of every purpose; `slot` holds at most one (`reset:<email>`, `email:<userId>`). */
  readonly one_time_tokens: {
    digest: string;
    purpose: OneTimeTokenPurpose;
    user_id: number | null;
    credential_generation: number | null;
    email: string | null;
    data: string | null;
    failures: number;
    slot: string | null;
    created_at: Time;
    expires_at: Time;
  };
  readonly contact_messages: { id: Generated<number>; name: string; email: string; message: string; client_ip: string; user_agent: string | null; received_at: Time };
  readonly rate_limit_windows: { key: string; count: number; reset_at: Time };
  readonly mail_outbox: { id: string; recipient: string | null; subject: string; body: string; reply_to: string | null; kind: MailKind; created_at: Time; due_at: Time; attempts: Generated<number>; last_error: string | null };
  readonly device_keys: { id: number; key: string; created_at: Time };
  readonly totp_factors: { user_id: number; sealed_secret: string; enabled: number; last_used_step: number | null; created_at: Time };
  readonly recovery_codes: { user_id: number; code_digest: string };
  /** `transports` is a JSON array; `public_key` a blob. */
  readonly passkeys: { id: string; user_id: number; name: string; public_key: Uint8Array; counter: number; transports: string; created_at: Time; last_used_at: ColumnType<number | null, Date | null, Date | null> };
  readonly identities: { issuer: string; subject: string; provider: string; user_id: number; email: string | null; linked_at: Time };
  /** The activity log (issue 43): `details` is a JSON object; `summary` the key of a counted event. */
  readonly activity: { id: Generated<number>; user_id: number | null; type: string; at: Time; client_ip: string | null; user_agent: string | null; actor: string | null; details: string; count: Generated<number>; summary?: string | null };
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
  // One single-use token table (ADR 0054), as store-postgres's 0014: the rows of the four token tables
  // move in, step-ups move onto their sessions, then the old tables go.
  '0004_one_time_tokens': { up: (db) => run(db, ONE_TIME_TOKENS) },
  // Identities at providers (issue 42), as store-postgres's 0015_identities.
  '0005_identities': { up: (db) => run(db, IDENTITIES) },
  // The activity log and the account lock (issue 43), as store-postgres's 0016_activity. Numbered 6,
  // leaving 0005 to the identities being added beside it.
  '0006_activity': { up: (db) => run(db, ACTIVITY) },
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

/** The purposes a token may have (core's OneTimeTokenPurpose). */
const PURPOSES = ['password-reset', 'verify-email', 'change-email', 'login', 'passkey-register', 'passkey-sign-in', 'passkey-second-factor', 'passkey-step-up', 'sign-in-state'];

const ONE_TIME_TOKENS = `
create table one_time_tokens (digest text primary key ${HEX64('digest')},
  purpose text not null check (purpose in (${PURPOSES.map((p) => `'${p}'`).join(', ')})),
  user_id integer references users (id) on delete cascade, credential_generation integer, email text,
  data text check (length(data) <= 8192), failures integer not null default 0 check (failures >= 0), slot text unique,
  created_at integer not null, expires_at integer not null);
create index one_time_tokens_expires_at_idx on one_time_tokens (expires_at);
create index one_time_tokens_user_id_idx on one_time_tokens (user_id, created_at);
insert into one_time_tokens (digest, purpose, user_id, credential_generation, email, slot, created_at, expires_at)
  select token_digest, 'password-reset', user_id, credential_generation, email, 'reset:' || email, created_at, expires_at from password_resets;
insert into one_time_tokens (digest, purpose, user_id, credential_generation, email, slot, created_at, expires_at)
  select token_digest, purpose || '-email', user_id, credential_generation, email, 'email:' || user_id, created_at, expires_at from email_tokens;
insert into one_time_tokens (digest, purpose, user_id, credential_generation, failures, created_at, expires_at)
  select token_digest, 'login', user_id, credential_generation, failures, created_at, expires_at from login_challenges;
insert into one_time_tokens (digest, purpose, user_id, created_at, expires_at)
  select digest, 'passkey-' || purpose, user_id, created_at, expires_at from passkey_challenges;
alter table sessions add column step_up_kind text check (step_up_kind in ('totp', 'recovery', 'passkey'));
alter table sessions add column step_up_at integer;
update sessions set step_up_kind = s.kind, step_up_at = s.verified_at from step_ups s where s.session_digest = sessions.token_digest;
drop table step_ups;
drop table login_challenges;
drop table passkey_challenges;
drop table email_tokens;
drop table password_resets;
`;

// Unique by issuer and subject (one account per identity), one per account and provider.
const IDENTITIES = `
create table identities (issuer text not null check (length(issuer) <= 2000), subject text not null check (length(subject) <= 255),
  provider text not null check (length(provider) <= 32), user_id integer not null references users (id) on delete cascade,
  email text, linked_at integer not null, primary key (issuer, subject));
create unique index identities_user_id_provider_key on identities (user_id, provider);
`;

// Events stay when their account goes (no foreign key): the operator's record of a deletion. The
// sweep deletes them after ACTIVITY_RETENTION_DAYS.
const ACTIVITY = `
alter table users add column locked integer not null default 0 check (locked in (0, 1));
create table activity (id integer primary key autoincrement, user_id integer, type text not null, at integer not null,
  client_ip text, user_agent text, actor text, details text not null, count integer not null default 1 check (count >= 1),
  summary text unique);
create index activity_user_id_idx on activity (user_id, id);
create index activity_type_idx on activity (type, id);
create index activity_at_idx on activity (at);
`;

/**
 * Applies pending migrations (up to `target`, a test's older schema, or all) with Kysely's Migrator
 * and returns their names. One process holds the file (see `open`), so no other migrates at the same time.
 */
export async function migrateToLatest(db: Kysely<Database>, target?: string): Promise<readonly string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
  const { error, results = [] } = await (target === undefined ? migrator.migrateToLatest() : migrator.migrateTo(target));
  if (error) throw error;
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
