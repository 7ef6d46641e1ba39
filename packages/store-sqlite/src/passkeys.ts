/**
 * Passkeys and their WebAuthn challenges (ADR 45), in plain SQL as the second factors. Each method is
 * one synchronous step, so its compare-and-set is atomic here (one process holds the file).
 */
import type { Passkey, PasskeyChallengePurpose, Repositories } from '@sl-accounts/core';
import type { Runner, Unit } from './database.ts';

const COLUMNS = 'id, user_id, name, public_key, counter, transports, created_at, last_used_at';
// From the user's row at the generation the caller read; an id stored already (any account's) inserts nothing.
const INSERT = `insert into passkeys (${COLUMNS}) select ?, id, ?, ?, ?, ?, ?, ? from users where id = ? and credential_generation = ?
  on conflict (id) do nothing returning id`;
const BY_ID = `select ${COLUMNS} from passkeys where id = ?`;
const BY_USER = `select ${COLUMNS} from passkeys where user_id = ? order by created_at, id`;
const RENAME = 'update passkeys set name = ? where id = ? and user_id = ? returning id';
const DELETE = 'delete from passkeys where id = ? and user_id = ? returning id';
// Forward only; or 0 and 0, an authenticator that does not count.
const RECORD_USE = 'update passkeys set counter = ?, last_used_at = ? where id = ? and (counter < ? or (counter = 0 and ? = 0)) returning id';
const PUT_CHALLENGE = 'insert into passkey_challenges (digest, purpose, user_id, created_at, expires_at) values (?, ?, ?, ?, ?)';
const TAKE_CHALLENGE = 'delete from passkey_challenges where digest = ? and expires_at > ? returning digest, purpose, user_id, created_at, expires_at';
/** Deletes the WebAuthn challenges expired at `now` (its one value). */
export const DELETE_EXPIRED_PASSKEY_CHALLENGES = 'delete from passkey_challenges where expires_at <= ?';

type Row = Record<string, number | string | Uint8Array | null>;
const rows = (run: Runner, text: string, values: readonly unknown[]) => run.all(text, values) as Row[];
const toPasskey = (r: Row): Passkey => ({
  id: String(r.id),
  userId: Number(r.user_id),
  name: String(r.name),
  publicKey: new Uint8Array(r.public_key as Uint8Array),
  counter: Number(r.counter),
  transports: JSON.parse(String(r.transports)) as string[],
  createdAt: new Date(Number(r.created_at)),
  lastUsedAt: r.last_used_at === null ? null : new Date(Number(r.last_used_at)),
});

/** The passkeys' two repositories, on one unit. */
export function passkeyRepositories({ step }: Unit): Pick<Repositories, 'passkeys' | 'passkeyChallenges'> {
  const any = (text: string, values: readonly unknown[]) => step((run) => rows(run, text, values).length > 0);
  return {
    passkeys: {
      insert: (p, generation) => any(INSERT, [p.id, p.name, p.publicKey, p.counter, JSON.stringify(p.transports), p.createdAt, p.lastUsedAt, p.userId, generation]),
      findById: (id) => step((run) => rows(run, BY_ID, [id]).map(toPasskey)[0] ?? null),
      listByUser: (userId) => step((run) => rows(run, BY_USER, [userId]).map(toPasskey)),
      rename: (userId, id, name) => any(RENAME, [name, id, userId]),
      delete: (userId, id) => any(DELETE, [id, userId]),
      recordUse: (id, counter, usedAt) => any(RECORD_USE, [counter, usedAt, id, counter, counter]),
    },
    passkeyChallenges: {
      put: (c) => step((run) => void run.changes(PUT_CHALLENGE, [c.digest, c.purpose, c.userId, c.createdAt, c.expiresAt])),
      take: (digest, now) =>
        step((run) => {
          const [r] = rows(run, TAKE_CHALLENGE, [digest, now]);
          return r ? { digest: String(r.digest), purpose: r.purpose as PasskeyChallengePurpose, userId: r.user_id === null ? null : Number(r.user_id), createdAt: new Date(Number(r.created_at)), expiresAt: new Date(Number(r.expires_at)) } : null;
        }),
    },
  };
}
