import { InProcessRevocations, type ContactRepository, type DeviceKeyStore, type OneTimeTokenPurpose, type OutboxRepository, type Repositories, type SessionRepository, type Store } from '@sl-accounts/service/core';
import { ActivityLog, activityRepository, memoryDirectory } from './activity.ts';
import { MemoryContactStore } from './contact-store.ts';
import { Gate } from './gate.ts';
import { MemoryOutbox } from './outbox.ts';
import { MemoryRateLimiter } from './rate-limiter.ts';
import { identityRepository, oneTimeTokenRepository, passkeyRepository, recoveryCodeRepository, sessionRepository, totpRepository, userRepository, type Where } from './repositories.ts';
import { Tables, Unit } from './tables.ts';

/**
 * The memory store: every repository in Maps, every method async like a real store's (so a missing
 * `await` fails here too), units of work one at a time (see Gate), writes undone when a unit fails.
 * State is lost with the process; expired entries go at the next sweep.
 */

/** Every part of the store in memory; the parts tests look inside have their concrete types. */
export interface MemoryStore extends Store {
  readonly sessions: SessionRepository & {
    /** How many sessions are kept, expired ones included (for tests of the sweep). */
    readonly size: number;
  };
  readonly contacts: MemoryContactStore;
  readonly rateLimiter: MemoryRateLimiter;
  readonly outbox: MemoryOutbox;
}

/** Bounds of a memory store: what it keeps at most. */
export interface MemoryStoreOptions {
  /** Contact messages kept (the most recent ones); default 10000. */
  readonly contactCapacity?: number;
  /** Bytes of contact messages kept (their text as UTF-8, plus 256 each); default 32 MiB. */
  readonly contactByteCapacity?: number;
  /** Mails of each kind (contact, unverified, security) the outbox keeps unsent (the kind's oldest go first past it); default 1000. */
  readonly outboxCapacity?: number;
  /**
   * Rate-limit windows kept, least recently used dropped first, never one that refuses until it
   * ends; default `DEFAULT_RATE_LIMIT_KEYS` (100,000).
   */
  readonly rateLimitKeys?: number;
}

/** Runs each method of `repository` as one step outside any unit of work (see Gate). */
function outside<R extends object>(gate: Gate, name: string, repository: R): R {
  const gated: Record<string, unknown> = {};
  for (const [method, fn] of Object.entries(repository) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    // The repositories' methods finish synchronously (no store awaits anything), so one step is the whole call.
    gated[method] = (...args: unknown[]) => gate.step(`${name}.${method}`, () => fn(...args));
  }
  return gated as R;
}

/** A fresh, empty in-memory store: every port the core needs, for tests and embedding. */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const gate = new Gate();
  const guard = (what: string) => gate.check(what);
  const tables = new Tables();
  const activityLog = new ActivityLog();
  const revocations = new InProcessRevocations();
  const outbox = new MemoryOutbox({ guard, ...(options.outboxCapacity === undefined ? {} : { capacity: options.outboxCapacity }) });
  const contacts = new MemoryContactStore({
    guard,
    ...(options.contactCapacity === undefined ? {} : { capacity: options.contactCapacity }),
    ...(options.contactByteCapacity === undefined ? {} : { byteCapacity: options.contactByteCapacity }),
  });

  /** The repositories writing through `unit`. */
  const repositories = (unit: Unit): Repositories => {
    const where: Where = { tables, unit, revocations };
    // What a unit of work queues or stores beyond the tables waits for its commit.
    const queued: OutboxRepository = { add: async (mail) => unit.later(() => outbox.queue(mail)) };
    const contactsOf: ContactRepository = { add: async (message) => unit.later(() => contacts.keep(message)) };
    return {
      users: userRepository(where),
      sessions: sessionRepository(where),
      oneTimeTokens: oneTimeTokenRepository(where),
      contacts: contactsOf,
      outbox: queued,
      passkeys: passkeyRepository(where),
      totp: totpRepository(where),
      recoveryCodes: recoveryCodeRepository(where),
      identities: identityRepository(where),
      activity: activityRepository(activityLog, unit),
    };
  };
  const autocommit = repositories(new Unit(false));
  const sessions = Object.defineProperty(outside(gate, 'sessions', autocommit.sessions), 'size', { get: () => tables.sessions.size }) as MemoryStore['sessions'];

  let key: string | undefined;
  const deviceKeys: DeviceKeyStore = {
    // One key for the life of the store: only this process uses it.
    getOrCreate: async (candidate) => {
      guard('deviceKeys.getOrCreate');
      return (key ??= candidate);
    },
  };

  return {
    users: outside(gate, 'users', autocommit.users),
    sessions,
    oneTimeTokens: outside(gate, 'oneTimeTokens', autocommit.oneTimeTokens),
    passkeys: outside(gate, 'passkeys', autocommit.passkeys),
    totp: outside(gate, 'totp', autocommit.totp),
    recoveryCodes: outside(gate, 'recoveryCodes', autocommit.recoveryCodes),
    identities: outside(gate, 'identities', autocommit.identities),
    activity: outside(gate, 'activity', autocommit.activity),
    contacts,
    outbox,
    rateLimiter: new MemoryRateLimiter(options.rateLimitKeys, guard),
    deviceKeys,
    revocations,
    directory: outside(gate, 'directory', memoryDirectory(tables, contacts)),

    transaction: (work) =>
      gate.unit(async () => {
        const unit = new Unit(true);
        let ended = false;
        const tx = repositories(unit);
        // A call through `tx` after its unit ended would write outside any unit: refused.
        const live = <R extends object>(name: string, repository: R): R =>
          Object.fromEntries(
            Object.entries(repository).map(([method, fn]: [string, (...args: unknown[]) => Promise<unknown>]) => [
              method,
              (...args: unknown[]) => (ended ? Promise.reject(new Error(`tx.${name}.${method} was called after its unit of work ended`)) : fn(...args)),
            ]),
          ) as R;
        try {
          const result = await work({
            users: live('users', tx.users),
            sessions: live('sessions', tx.sessions),
            oneTimeTokens: live('oneTimeTokens', tx.oneTimeTokens),
            contacts: live('contacts', tx.contacts),
            outbox: live('outbox', tx.outbox),
            passkeys: live('passkeys', tx.passkeys),
            totp: live('totp', tx.totp),
            recoveryCodes: live('recoveryCodes', tx.recoveryCodes),
            identities: live('identities', tx.identities),
            activity: live('activity', tx.activity),
          });
          ended = true;
          unit.commit();
          return result;
        } catch (error) {
          ended = true;
          unit.rollback();
          throw error;
        }
      }),

    deleteExpired: (now) =>
      gate.step('deleteExpired', () => {
        const t = now.getTime();
        const gone = [...tables.sessions].filter(([, s]) => s.expiresAt.getTime() <= t).map(([digest]) => digest);
        const unit = new Unit(false);
        for (const digest of gone) tables.removeSession(unit, digest);
        revocations.publish(gone);
        const oneTimeTokens: Partial<Record<OneTimeTokenPurpose, number>> = {};
        for (const token of [...tables.oneTimeTokens.values()]) {
          if (token.expiresAt.getTime() > t) continue;
          tables.remove(unit, tables.oneTimeTokens, token.digest);
          oneTimeTokens[token.purpose] = (oneTimeTokens[token.purpose] ?? 0) + 1;
        }
        return { sessions: gone.length, standIns: outbox.deleteStandIns(now), oneTimeTokens };
      }),

    ping: async () => {},
    close: async () => {},
  };
}
