/** The operator's reads (`AccountDirectory`, issue 43): accounts by the start of their address, contact messages by sender. */
import type { AccountDirectory, ContactMessage } from '@sl-accounts/service/core';
import { compiled, type Unit } from './database.ts';
import { RECORD, toRecord } from './repositories.ts';

// A prefix compared as a prefix (no LIKE, so `%` and `_` in it are only characters).
const search = compiled(4, (db, prefix: string, length: number, after: number, limit: number) =>
  db
    .selectFrom('users')
    .select(RECORD)
    .where((eb) => eb(eb.fn('substr', ['email', eb.lit(1), eb.val(length)]), '=', prefix))
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit),
);
const contactsFrom = compiled(2, (db, email: string, limit: number) =>
  db.selectFrom('contact_messages').select(['name', 'email', 'message', 'client_ip', 'user_agent', 'received_at']).where('email', '=', email).orderBy('id').limit(limit),
);

// The account's links among its single-use tokens: metadata only, never the digest.
const linksOf = compiled(1, (db, userId: number) =>
  db.selectFrom('one_time_tokens').select(['purpose', 'email', 'created_at', 'expires_at']).where('user_id', '=', userId).where('purpose', 'in', ['verify-email', 'change-email', 'password-reset']),
);

export function directoryOn(unit: Unit): AccountDirectory {
  const { step } = unit;
  return {
    search: (prefix, after, limit) => step((run) => search.all(run, prefix, prefix.length, after ?? 0, limit).map(toRecord)),
    contactsFrom: (email, limit) =>
      step((run) =>
        contactsFrom.all(run, email, limit).map((r): ContactMessage => ({ name: r.name, email: r.email, message: r.message, clientIp: r.client_ip, userAgent: r.user_agent, receivedAt: new Date(r.received_at) })),
      ),
    pendingLinks: (userId) =>
      step((run) => {
        const rows = linksOf.all(run, userId);
        const link = rows.find((r) => r.purpose !== 'password-reset');
        const reset = rows.find((r) => r.purpose === 'password-reset');
        return {
          emailLink: link ? { purpose: link.purpose === 'verify-email' ? 'verify' : 'change', email: link.email ?? '', createdAt: new Date(link.created_at), expiresAt: new Date(link.expires_at) } : null,
          passwordReset: reset ? { createdAt: new Date(reset.created_at), expiresAt: new Date(reset.expires_at) } : null,
        };
      }),
  };
}
