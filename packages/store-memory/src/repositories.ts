import { randomUUID } from 'node:crypto';
import {
  EmailTaken,
  FIRST_CREDENTIAL_GENERATION,
  type Identity,
  type IdentityRepository,
  type OneTimeToken,
  type OneTimeTokenRepository,
  type RecoveryCodeRepository,
  type TotpFactor,
  type TotpRepository,
  type InProcessRevocations,
  type PasskeyRepository,
  type SessionInfo,
  type SessionRepository,
  type UserRecord,
  type UserRepository,
} from '@sl-accounts/service/core';
import { toUser } from '@sl-accounts/service/core';
import { identityKey, type Tables, type Unit } from './tables.ts';

/** What the repositories of one unit of work (or of none) write to. */
export interface Where {
  readonly tables: Tables;
  readonly unit: Unit;
  /** Told of every session deleted or changed, once the write is final. */
  readonly revocations: InProcessRevocations;
}

/** Tells the feed, once final, that these sessions were deleted or show a changed user. */
function revoke({ unit, revocations }: Where, digests: readonly string[]): void {
  if (digests.length > 0) unit.later(() => revocations.publish(digests));
}

export function userRepository(where: Where): UserRepository {
  const { tables, unit } = where;
  return {
    async insert(user) {
      if (tables.idByEmail.has(user.email)) return null;
      const record: UserRecord = { id: tables.nextId++, name: user.name, email: user.email, emailVerified: false, passwordHash: user.passwordHash, credentialGeneration: FIRST_CREDENTIAL_GENERATION };
      tables.setUser(unit, record);
      return record;
    },

    async findByEmail(email) {
      const id = tables.idByEmail.get(email);
      return id === undefined ? null : (tables.users.get(id) ?? null);
    },

    async findById(userId) {
      return tables.users.get(userId) ?? null;
    },

    async update(userId, changes, expected = {}) {
      const record = tables.users.get(userId);
      if (!record) return null;
      if (expected.credentialGeneration !== undefined && record.credentialGeneration !== expected.credentialGeneration) return null;
      if (expected.email !== undefined && record.email !== expected.email) return null;
      if (expected.emailVerified !== undefined && record.emailVerified !== expected.emailVerified) return null;
      // The unique index's part: the check and the write are one synchronous step.
      const holder = changes.email === undefined ? undefined : tables.idByEmail.get(changes.email);
      if (holder !== undefined && holder !== userId) throw new EmailTaken();
      // Unlocked is the field left out, as the SQL stores read it.
      const { locked, ...rest } = { ...record, ...changes };
      const updated: UserRecord = locked ? { ...rest, locked } : rest;
      tables.setUser(unit, updated, record);
      // Every session of the user shows it: caches in front forget them.
      if (changes.name !== undefined || changes.email !== undefined || changes.emailVerified !== undefined) revoke(where, tables.sessionsOf(userId));
      return updated;
    },

    async delete(userId) {
      const ended = tables.sessionsOf(userId);
      // The user's row and, as the SQL stores' cascades, every row that references it (tables.ts).
      if (!tables.remove(unit, tables.users, userId)) return false;
      revoke(where, ended);
      return true;
    },
  };
}

/** The user's sessions but those `kept` names, as `SessionRepository.deleteByUser` orders them. */
function doomed(tables: Tables, userId: number, except: string | null | undefined, keepNewest: number): string[] {
  const others = tables.sessionsOf(userId).filter((digest) => digest !== except);
  if (keepNewest <= 0) return others;
  // Newest first by creation time, then by the greater digest, as the SQL stores order them.
  others.sort((a, b) => tables.sessions.get(b)!.createdAt.getTime() - tables.sessions.get(a)!.createdAt.getTime() || (a < b ? 1 : -1));
  return others.slice(keepNewest);
}

export function sessionRepository(where: Where): SessionRepository {
  const { tables, unit } = where;
  return {
    async insert(session) {
      // The check and the insert in one synchronous step: no change of credential comes between.
      if (tables.users.get(session.userId)?.credentialGeneration !== session.credentialGeneration) return false;
      tables.removeSession(unit, session.tokenDigest);
      tables.addSession(unit, session.tokenDigest, { id: randomUUID(), userId: session.userId, createdAt: session.createdAt, expiresAt: session.expiresAt, stepUp: null });
      return true;
    },

    async findWithUser(tokenDigest) {
      const session = tables.sessions.get(tokenDigest);
      const record = session ? tables.users.get(session.userId) : undefined;
      if (!session || !record) return null;
      return { user: toUser(record), expiresAt: session.expiresAt };
    },

    async listByUser(userId, now) {
      const listed: SessionInfo[] = [];
      for (const tokenDigest of tables.sessionsOf(userId)) {
        const s = tables.sessions.get(tokenDigest)!;
        if (s.expiresAt.getTime() > now.getTime()) listed.push({ id: s.id, tokenDigest, createdAt: s.createdAt, expiresAt: s.expiresAt });
      }
      return listed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
    },

    async delete(tokenDigest) {
      const session = tables.removeSession(unit, tokenDigest);
      if (!session) return null;
      revoke(where, [tokenDigest]);
      return { expiresAt: session.expiresAt };
    },

    async deleteByUser(userId, kept = {}) {
      const ended = doomed(tables, userId, kept.except, kept.keepNewest ?? 0);
      for (const digest of ended) tables.removeSession(unit, digest);
      revoke(where, ended);
      return ended;
    },

    async recordStepUp(tokenDigest, kind, at) {
      const session = tables.sessions.get(tokenDigest);
      if (!session) return false;
      tables.put(unit, tables.sessions, tokenDigest, { ...session, stepUp: { kind, verifiedAt: at } });
      return true;
    },

    async findStepUp(tokenDigest) {
      return tables.sessions.get(tokenDigest)?.stepUp ?? null;
    },
  };
}

/** Newest first, as the SQL stores order them: by creation time, then by the greater digest. */
const newestFirst = (a: OneTimeToken, b: OneTimeToken) => b.createdAt.getTime() - a.createdAt.getTime() || (a.digest < b.digest ? 1 : -1);

export function oneTimeTokenRepository({ tables, unit }: Where): OneTimeTokenRepository {
  return {
    // One synchronous step: the check of the generation, the insert and the trim (the units are serial).
    async put(token, options = {}) {
      if (options.underGeneration && (token.userId === null || tables.users.get(token.userId)?.credentialGeneration !== token.credentialGeneration)) return false;
      // A token of an account deleted meanwhile is not kept (the SQL stores' foreign key would refuse it).
      if (token.userId !== null && !tables.users.has(token.userId)) return false;
      tables.putToken(unit, token, options.slot ?? null);
      const keep = options.keepNewest;
      if (!keep || token.userId === null) return true;
      const own = [...tables.oneTimeTokens.values()].filter((t) => t.userId === token.userId && keep.purposes.includes(t.purpose));
      for (const old of own.sort(newestFirst).slice(keep.count)) tables.remove(unit, tables.oneTimeTokens, old.digest);
      return true;
    },

    async take(purposes, digest, now) {
      const row = tables.oneTimeTokens.get(digest);
      if (!row || !(typeof purposes === 'string' ? [purposes] : purposes).includes(row.purpose) || row.expiresAt.getTime() <= now.getTime()) return null;
      tables.remove(unit, tables.oneTimeTokens, digest);
      const { slot: _slot, ...token } = row;
      return token;
    },
  };
}

/** A copy, so no caller can change a stored passkey's key bytes or transports in place. */
const copied = <P extends { readonly publicKey: Uint8Array; readonly transports: readonly string[] }>(passkey: P): P => ({ ...passkey, publicKey: new Uint8Array(passkey.publicKey), transports: [...passkey.transports] });

export function passkeyRepository({ tables, unit }: Where): PasskeyRepository {
  return {
    async insert(passkey, credentialGeneration) {
      // The checks and the insert in one synchronous step, as the SQL statement's.
      if (tables.users.get(passkey.userId)?.credentialGeneration !== credentialGeneration) return false;
      if (tables.passkeys.has(passkey.id)) return false;
      tables.put(unit, tables.passkeys, passkey.id, copied(passkey));
      return true;
    },

    async findById(id) {
      const passkey = tables.passkeys.get(id);
      return passkey ? copied(passkey) : null;
    },

    async listByUser(userId) {
      return [...tables.passkeys.values()]
        .filter((p) => p.userId === userId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map(copied);
    },

    async rename(userId, id, name) {
      const passkey = tables.passkeys.get(id);
      if (!passkey || passkey.userId !== userId) return false;
      tables.put(unit, tables.passkeys, id, { ...passkey, name });
      return true;
    },

    async delete(userId, id) {
      const passkey = tables.passkeys.get(id);
      if (!passkey || passkey.userId !== userId) return false;
      tables.put(unit, tables.passkeys, id, undefined);
      return true;
    },

    async recordUse(id, counter, usedAt) {
      const passkey = tables.passkeys.get(id);
      if (!passkey) return false;
      if (!(passkey.counter < counter || (passkey.counter === 0 && counter === 0))) return false;
      tables.put(unit, tables.passkeys, id, { ...passkey, counter, lastUsedAt: usedAt });
      return true;
    },
  };
}

export function identityRepository({ tables, unit }: Where): IdentityRepository {
  const sorted = (a: Identity, b: Identity) => a.linkedAt.getTime() - b.linkedAt.getTime() || (a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0);
  return {
    async insert(identity, credentialGeneration) {
      // The checks and the insert in one synchronous step, as the SQL statement's with its unique indexes.
      if (tables.users.get(identity.userId)?.credentialGeneration !== credentialGeneration) return false;
      const key = identityKey(identity.issuer, identity.subject);
      if (tables.identities.has(key)) return false;
      for (const held of tables.identities.values()) if (held.userId === identity.userId && held.provider === identity.provider) return false;
      tables.put(unit, tables.identities, key, { ...identity });
      return true;
    },

    async find(issuer, subject) {
      const identity = tables.identities.get(identityKey(issuer, subject));
      return identity ? { ...identity } : null;
    },

    async listByUser(userId) {
      return [...tables.identities.values()].filter((i) => i.userId === userId).sort(sorted).map((i) => ({ ...i }));
    },

    async delete(userId, provider) {
      for (const [key, held] of tables.identities) {
        if (held.userId === userId && held.provider === provider) {
          tables.put(unit, tables.identities, key, undefined);
          return true;
        }
      }
      return false;
    },
  };
}

// Each method below is one synchronous step between awaits: the check and the write of a
// compare-and-set cannot be split by another request (the memory store's units of work are serial).

export function totpRepository({ tables, unit }: Where): TotpRepository {
  return {
    async putPending(userId, sealedSecret, createdAt) {
      if (!tables.users.has(userId) || tables.totp.get(userId)?.enabled) return false;
      tables.put(unit, tables.totp, userId, { userId, sealedSecret, enabled: false, lastUsedStep: null, createdAt });
      return true;
    },

    async find(userId) {
      return tables.totp.get(userId) ?? null;
    },

    async enable(userId, sealedSecret, step) {
      const factor = tables.totp.get(userId);
      if (!factor || factor.enabled || factor.sealedSecret !== sealedSecret) return false;
      tables.put(unit, tables.totp, userId, { ...factor, enabled: true, lastUsedStep: step });
      return true;
    },

    async useStep(userId, step) {
      const factor = tables.totp.get(userId);
      if (!factor?.enabled || (factor.lastUsedStep !== null && factor.lastUsedStep >= step)) return false;
      tables.put(unit, tables.totp, userId, { ...factor, lastUsedStep: step });
      return true;
    },

    async delete(userId) {
      if (!tables.totp.has(userId)) return false;
      tables.put(unit, tables.totp, userId, undefined);
      return true;
    },

    async countEnabled() {
      let n = 0;
      for (const factor of tables.totp.values()) if (factor.enabled) n++;
      return n;
    },

    async newest() {
      let newest: TotpFactor | null = null;
      for (const factor of tables.totp.values()) if (!newest || factor.createdAt.getTime() >= newest.createdAt.getTime()) newest = factor;
      return newest;
    },
  };
}

export function recoveryCodeRepository({ tables, unit }: Where): RecoveryCodeRepository {
  return {
    async replace(userId, digests) {
      tables.put(unit, tables.recoveryCodes, userId, digests.length === 0 || !tables.users.has(userId) ? undefined : new Set(digests));
    },

    async use(userId, digest) {
      const codes = tables.recoveryCodes.get(userId);
      if (!codes?.has(digest)) return null;
      const left = new Set(codes);
      left.delete(digest);
      tables.put(unit, tables.recoveryCodes, userId, left.size === 0 ? undefined : left);
      return left.size;
    },

    async count(userId) {
      return tables.recoveryCodes.get(userId)?.size ?? 0;
    },
  };
}
