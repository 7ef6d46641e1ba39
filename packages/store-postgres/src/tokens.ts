import type { EmailTokenRepository, ResetTokenRepository } from '@sl-accounts/service/core';
import { statement } from './compiled.ts';
import type { Unit } from './unit.ts';

const putReset = statement(6, (db, email: string, userId: number | null, generation: number | null, tokenDigest: string, createdAt: Date, expiresAt: Date) =>
  db
    .insertInto('password_resets')
    .values({ email, user_id: userId, credential_generation: generation, token_digest: tokenDigest, created_at: createdAt, expires_at: expiresAt })
    .onConflict((oc) =>
      oc.column('email').doUpdateSet((eb) => ({
        user_id: eb.ref('excluded.user_id'),
        credential_generation: eb.ref('excluded.credential_generation'),
        token_digest: eb.ref('excluded.token_digest'),
        created_at: eb.ref('excluded.created_at'),
        expires_at: eb.ref('excluded.expires_at'),
      })),
    ),
);
// RETURNING reports the row only to the statement that removed it: of concurrent takes, one gets it.
const takeReset = statement(2, (db, tokenDigest: string, now: Date) =>
  db.deleteFrom('password_resets').where('token_digest', '=', tokenDigest).where('expires_at', '>', now).returning(['email', 'user_id', 'credential_generation', 'token_digest', 'created_at', 'expires_at']),
);

// From the user's row, under its lock, so a user deleted meanwhile, or whose credential generation
// moved on since the caller read it, gets no token: one row per account, the newest replacing the one
// before, whatever it was for.
const putEmailToken = statement(7, (db, userId: number, tokenDigest: string, purpose: 'verify' | 'change', email: string, generation: number, createdAt: Date, expiresAt: Date) =>
  db
    .insertInto('email_tokens')
    .columns(['user_id', 'token_digest', 'purpose', 'email', 'credential_generation', 'created_at', 'expires_at'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select([
          'id',
          eb.val(tokenDigest).as('token_digest'),
          eb.val(purpose).as('purpose'),
          eb.val(email).as('email'),
          eb.val(generation).as('credential_generation'),
          eb.val(createdAt).as('created_at'),
          eb.val(expiresAt).as('expires_at'),
        ])
        .where('id', '=', userId)
        .where('credential_generation', '=', generation)
        .forShare(),
    )
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet((eb) => ({
        token_digest: eb.ref('excluded.token_digest'),
        purpose: eb.ref('excluded.purpose'),
        email: eb.ref('excluded.email'),
        credential_generation: eb.ref('excluded.credential_generation'),
        created_at: eb.ref('excluded.created_at'),
        expires_at: eb.ref('excluded.expires_at'),
      })),
    )
    .returning('user_id'),
);
const takeEmailToken = statement(2, (db, tokenDigest: string, now: Date) =>
  db.deleteFrom('email_tokens').where('token_digest', '=', tokenDigest).where('expires_at', '>', now).returning(['user_id', 'token_digest', 'purpose', 'email', 'credential_generation', 'created_at', 'expires_at']),
);

export function resetTokenRepository({ run }: Unit): ResetTokenRepository {
  return {
    async put(token) {
      await putReset(run, token.email, token.userId, token.credentialGeneration, token.tokenDigest, token.createdAt, token.expiresAt);
    },

    async take(tokenDigest, now) {
      const [row] = await takeReset(run, tokenDigest, now);
      if (!row) return null;
      return { email: row.email, userId: row.user_id, credentialGeneration: row.credential_generation, tokenDigest: row.token_digest, createdAt: row.created_at, expiresAt: row.expires_at };
    },
  };
}

export function emailTokenRepository({ run }: Unit): EmailTokenRepository {
  return {
    async put(userId, token) {
      return (await putEmailToken(run, userId, token.tokenDigest, token.purpose, token.email, token.credentialGeneration, token.createdAt, token.expiresAt)).length > 0;
    },

    async take(tokenDigest, now) {
      const [row] = await takeEmailToken(run, tokenDigest, now);
      if (!row) return null;
      return { userId: row.user_id, tokenDigest: row.token_digest, purpose: row.purpose, email: row.email, credentialGeneration: row.credential_generation, createdAt: row.created_at, expiresAt: row.expires_at };
    },
  };
}
