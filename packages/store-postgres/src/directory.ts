/** The operator's reads (`AccountDirectory`, issue 43): accounts by the start of their address, contact messages by sender. */
import { sql } from 'kysely';
import type { AccountDirectory } from '@sl-accounts/service/core';
import { statement } from './compiled.ts';
import type { Unit } from './unit.ts';
import { RECORD, toRecord, type RecordRow } from './users.ts';

// A prefix compared as a prefix (no LIKE, so `%` and `_` in it are only characters).
const search = statement(3, (db, prefix: string, after: number, limit: number) =>
  db.selectFrom('users').select(RECORD).where(sql<boolean>`starts_with(email, ${prefix})`).where('id', '>', after).orderBy('id').limit(limit),
);
const contactsFrom = statement(2, (db, email: string, limit: number) =>
  db.selectFrom('contact_messages').select(['name', 'email', 'message', 'client_ip', 'user_agent', 'received_at']).where('email', '=', email).orderBy('id').limit(limit),
);

// The account's links among its single-use tokens: metadata only, never the digest.
const linksOf = statement(1, (db, userId: number) =>
  db.selectFrom('one_time_tokens').select(['purpose', 'email', 'created_at', 'expires_at']).where('user_id', '=', userId).where('purpose', 'in', ['verify-email', 'change-email', 'password-reset']),
);

export function directoryOn(unit: Unit): AccountDirectory {
  const { run } = unit;
  return {
    async search(prefix, after, limit) {
      return ((await search(run, prefix, after ?? 0, limit)) as RecordRow[]).map(toRecord);
    },
    async contactsFrom(email, limit) {
      const rows = await contactsFrom(run, email, limit);
      return rows.map((r) => ({ name: r.name, email: r.email, message: r.message, clientIp: r.client_ip, userAgent: r.user_agent, receivedAt: r.received_at }));
    },
    async pendingLinks(userId) {
      const rows = await linksOf(run, userId);
      const link = rows.find((r) => r.purpose !== 'password-reset');
      const reset = rows.find((r) => r.purpose === 'password-reset');
      return {
        emailLink: link ? { purpose: link.purpose === 'verify-email' ? 'verify' : 'change', email: link.email ?? '', createdAt: link.created_at, expiresAt: link.expires_at } : null,
        passwordReset: reset ? { createdAt: reset.created_at, expiresAt: reset.expires_at } : null,
      };
    },
  };
}
