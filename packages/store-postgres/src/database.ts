import type { ColumnType, Generated } from 'kysely';
import type { FactorKind, MailKind, OneTimeTokenPurpose } from '@sl-accounts/service/core';

/**
 * The tables as Kysely sees them. These types stay inside this package: the adapters map rows to
 * core types, so no column name or Kysely type leaks to the use cases.
 */
export interface Database {
  readonly users: UsersTable;
  readonly sessions: SessionsTable;
  readonly contact_messages: ContactMessagesTable;
  readonly rate_limit_windows: RateLimitWindowsTable;
  readonly mail_outbox: MailOutboxTable;
  readonly device_keys: DeviceKeysTable;
  readonly one_time_tokens: OneTimeTokensTable;
  readonly passkeys: PasskeysTable;
  readonly totp_factors: TotpFactorsTable;
  readonly recovery_codes: RecoveryCodesTable;
  readonly identities: IdentitiesTable;
  readonly activity: ActivityTable;
}

/** The activity log (issue 43): one row per event; `summary` keys a counted one (failed sign-ins per hour). */
export interface ActivityTable {
  /** bigint identity: pg reads it as a string. */
  id: ColumnType<string | number, never, never>;
  user_id: number | null;
  type: string;
  at: Date;
  client_ip: string | null;
  user_agent: string | null;
  actor: string | null;
  details: ColumnType<Record<string, string | number | boolean | null>, unknown, unknown>;
  count: Generated<number>;
  summary: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Single-use tokens of every purpose (docs/decisions/0054); each goes with its account. */
export interface OneTimeTokensTable {
  /** SHA-256 of the token, 64 hex digits: the token itself is never stored. */
  digest: string;
  purpose: OneTimeTokenPurpose;
  user_id: number | null;
  credential_generation: number | null;
  email: string | null;
  /** Opaque to the store, at most 8 KiB. */
  data: string | null;
  failures: number;
  /** At most one token per slot (`reset:<email>`, `email:<userId>`); `null` for none. */
  slot: string | null;
  created_at: Date;
  expires_at: Date;
}

/** An account's identity at an identity provider (issue 42). */
export interface IdentitiesTable {
  issuer: string;
  subject: string;
  provider: string;
  user_id: number;
  email: string | null;
  linked_at: Date;
}

/** An account's TOTP factor, pending or on (docs/decisions/0044). */
export interface TotpFactorsTable {
  user_id: number;
  /** Sealed by the core (`v1.…`): the store never sees the secret. */
  sealed_secret: string;
  enabled: boolean;
  /** The last time step a code was accepted for: bigint, which pg reads as a string. */
  last_used_step: ColumnType<string | number | null, number | null, number | null>;
  created_at: Date;
}

export interface RecoveryCodesTable {
  user_id: number;
  /** SHA-256 of the code, 64 hex digits. */
  code_digest: string;
}

export interface PasskeysTable {
  /** The credential ID, base64url: unique across every account. */
  id: string;
  user_id: number;
  name: string;
  /** The COSE public key's bytes. */
  public_key: ColumnType<Uint8Array, Uint8Array, Uint8Array>;
  /** The signature counter as last seen: bigint, which pg reads as a string. */
  counter: ColumnType<string | number | bigint, number, number>;
  transports: string[];
  created_at: Date;
  last_used_at: Date | null;
}

export interface UsersTable {
  id: Generated<number>;
  name: string;
  /** Stored as given (already lower-cased); a unique index on `lower(email)` guards it. */
  email: string;
  /** A PHC string; a check constraint refuses anything else. */
  password_hash: string;
  /** Whether the owner proved they read mail at `email`; false for a new account. */
  email_verified: Generated<boolean>;
  /** Moved on by every change of credential; 0 for a new account. */
  credential_generation: Generated<number>;
  created_at: Date;
  /** Whether an operator locked the account (issue 43). */
  locked: Generated<boolean>;
}

export interface SessionsTable {
  /** SHA-256 of the session token, 64 hex digits: the token itself is never stored. */
  token_digest: string;
  /** The opaque id a user sees in the list of their sessions: random, set by the database. */
  id: Generated<string>;
  user_id: number;
  created_at: Date;
  expires_at: Date;
  /** The session's newest step-up: the kind of factor verified (`null` before any). */
  step_up_kind: Generated<FactorKind | null>;
  /** When it was verified (`null` before any). */
  step_up_at: Generated<Date | null>;
}

export interface ContactMessagesTable {
  /** bigint: pg returns it as a string; nothing reads it back. */
  id: Generated<string>;
  name: string;
  email: string;
  message: string;
  client_ip: string;
  user_agent: string | null;
  received_at: Date;
}

export interface RateLimitWindowsTable {
  key: string;
  count: number;
  reset_at: Date;
}

export interface MailOutboxTable {
  /** A UUID given at enqueue; the Message-ID of every attempt is made from it. */
  id: string;
  /** `null`: the stand-in of a reset request for an unknown address, which is never sent (a claim removes it). */
  recipient: string | null;
  subject: string;
  body: string;
  reply_to: string | null;
  /** `contact`, `unverified` or `security` (core's MailKind). */
  kind: MailKind;
  created_at: Date;
  /** When the next attempt may start (a claim's lease end, or a failure's retry time). */
  due_at: Date;
  attempts: Generated<number>;
  last_error: string | null;
}

/** The one key that signs device cookies (a single row, `id` 1), shared by every process. */
export interface DeviceKeysTable {
  id: number;
  key: string;
  created_at: Date;
}
