/**
 * The account manager: every rule about what an account's change writes, ends and mails, written
 * once over the store's repositories (as ASP.NET Core Identity's UserManager over its small stores).
 * Each method is one unit of work. The use cases (use-cases/) check requests, count limits, hash
 * and write the mails' text, then call one of these; the store contract runs them on every store.
 *
 * The races are decided by the credential generation (see `UserRecord.credentialGeneration`): a
 * change is a compare-and-set on the generation it read, and moves it on; a session or e-mail token
 * is written only while its generation is current. Inside a unit of work, a row a compare-and-set
 * touched stays locked until the unit ends, so what is ended or mailed after it is what the change
 * saw. Sessions a change ends are handed to the session cache in front of the store (`forget`).
 */
import type { ActivityEntry } from './activity.ts';
import { EmailTaken } from './errors.ts';
import type { AccountMail, OutgoingMail } from './ports.ts';
import { NO_PASSWORD, type ContactMessage, type Identity, type NewSession, type OneTimeToken, type NewUser, type Passkey, type Repositories, type Store, type User, type UserRecord } from './store.ts';

/** What a link mailed to an address does when its token is confirmed: verify it, or move the account there. */
export type EmailTokenPurpose = 'verify' | 'change';

/** A token of a link and the mails that go with it, written in one unit of work. */
export interface EmailLink {
  /** Its purpose `verify-email` or `change-email`, its `email` the address mailed; the account is the manager's to fill in. */
  readonly token: Omit<OneTimeToken, 'userId'>;
  readonly mails: readonly OutgoingMail[];
}

/** What a confirmed e-mail token changed. */
export interface EmailConfirmed {
  readonly purpose: EmailTokenPurpose;
  /** The user as it is now (verified; at the new address after a change). */
  readonly user: User;
  /** The address the account had before (the same as `user.email` after a verification). */
  readonly previousEmail: string;
  /**
   * Whether the account's owner had proven `previousEmail` (it was verified before this change): a
   * notice to an address nobody proved would be mail to whoever typed it.
   */
  readonly previousEmailVerified: boolean;
  /** The sessions a change of address ended (none for a verification). */
  readonly endedSessions: readonly string[];
}

/** A password reset token to store. */
export interface NewPasswordReset {
  /** SHA-256 digest of the token (hex); the token itself is never stored. */
  readonly tokenDigest: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** What a reset token's use changed. */
export interface PasswordReset {
  readonly userId: number;
  /** The account's normalised e-mail address (its failed-login count is cleared by it). */
  readonly email: string;
  readonly endedSessions: readonly string[];
}

/** A store, or a store with a session cache in front (`cacheSessions`), which forgets what the store ended. */
export type ManagedStore = Store & { forget?(digests: readonly string[]): void };

/** The account manager (see the module's comment). */
export interface AccountManager {
  /**
   * Inserts the user (see `UserRepository.insert`) and, with `verification`, stores its token as the
   * new user's and queues its mails, in one unit of work: all or nothing. `null` when the address is taken.
   */
  signUp(user: NewUser, verification?: EmailLink, event?: Event): Promise<User | null>;
  /**
   * Stores a session under the credential generation its login read (see `SessionRepository.insert`):
   * whether it stored it (`false`: that generation is stale, or the user gone). With `maxPerUser`, ends
   * the user's oldest sessions beyond that many, never the new one (concurrent logins too leave at
   * most that many); with `notice`, queues it to the user's address as the locked row has it. One
   * unit of work; without either, the single statement of the fast path.
   */
  startSession(session: NewSession, maxPerUser?: number, notice?: AccountMail | null, event?: Event): Promise<boolean>;
  /** A weaker hash replaced by an equivalent one (login's rehash), only while the generation is `generation`: no change of credential. */
  replaceHash(userId: number, generation: number, passwordHash: string): Promise<boolean>;
  /** Sets the user's name; the user as it is now, or `null` when there is no such user. */
  rename(userId: number, name: string, event?: Event): Promise<User | null>;
  /**
   * Sets a new password while the generation is still `generation` (the one read before the current
   * password was checked), moves it on, ends every session of the user but `keep` and queues
   * `notice`: the ended sessions' digests, or `null` when the generation moved on (nothing changes).
   */
  changePassword(userId: number, generation: number, passwordHash: string, keep: string | null, notice?: AccountMail | null, event?: Event): Promise<readonly string[] | null>;
  /**
   * Deletes the user with their sessions and tokens while the generation is still `generation`, and
   * queues `notice` to the address the account had (it goes although the account is gone): the ended
   * sessions' digests, or `null` when there was no such user, the generation moved on, or the session
   * `by` that asked (when named) was ended meanwhile.
   */
  deleteAccount(userId: number, generation: number, notice?: AccountMail | null, event?: Event, by?: string | null): Promise<readonly string[] | null>;
  /** Ends the user's session with this listed id: its digest, or `null` when no session of the user has it. */
  endSession(userId: number, id: string, event?: Event): Promise<string | null>;
  /**
   * Stores a reset token for `email`, then queues `mail` with its link: the token bound to the account
   * at the address and its generation now, or, for an address that is nobody's, bound to none (it
   * opens nothing, not even an account made there later) with a stand-in instead of the mail. The same
   * repository calls either way, so neither the time nor what is written tells the two apart. Whether
   * it was an account's.
   */
  requestReset(email: string, reset: NewPasswordReset, mail: OutgoingMail): Promise<boolean>;
  /**
   * Uses a reset token: when it is stored, unexpired at `now`, bound to an account and the account is
   * still at the generation it was requested under, sets the password, moves the generation on, marks
   * the address verified (the link was read there), ends every session and queues `notice`. Of
   * concurrent uses one succeeds. `null` for an unknown, used, expired or stale token (nothing
   * changes, but that a stale token is used up). An account whose address nobody proved loses every
   * way in but the new password; with `claimUnverified` (what the use case asks) such an account still
   * at the token's address is also taken whatever generation it moved to since (its maker's changes
   * of credential do not void its inbox owner's reset).
   */
  completeReset(tokenDigest: string, now: Date, passwordHash: string, notice?: AccountMail | null, event?: Event, options?: { readonly claimUnverified?: boolean }): Promise<PasswordReset | null>;
  /**
   * Replaces the user's e-mail token with the link's and queues its mails, if the user is still at
   * the token's generation (the one the request checked the password against) and the session `by`
   * that asked (when named) still stands: whether it wrote.
   */
  requestEmailLink(userId: number, link: EmailLink, event?: Event, by?: string | null): Promise<boolean>;
  /**
   * Uses an e-mail token unexpired at `now` (of concurrent uses at most one succeeds):
   * - `verify`: when the account's address is still the one the token was mailed to, marks it verified;
   * - `change`: while the account is at the token's generation (a password change, a reset or another
   *   move since voids a pending move), moves it to the token's address, verified, moves the
   *   generation on and ends every session but `keep` (of several digests, the first that is a live
   *   session of the account); `'taken'` when the address is another
   *   account's (the unique index decides, also against a concurrent signup or move): then nothing
   *   changes, the token included.
   * On success queues `mails(confirmed)` in the same unit of work. `null` for an unknown, used, expired
   * or stale token (nothing changes but that a stale token is used up). `'sign-in-needed'` when the
   * link would verify or move the account, `requireSession` is set (what the use case asks: a link
   * proves the inbox, not who holds the account) and `keep` is not one of its live sessions: then
   * nothing changes, the token included.
   */
  confirmEmailLink(
    tokenDigest: string,
    now: Date,
    keep: string | readonly string[] | null,
    mails: (confirmed: EmailConfirmed) => readonly OutgoingMail[],
    event?: (confirmed: EmailConfirmed) => ActivityEntry,
    options?: { readonly requireSession?: boolean },
  ): Promise<EmailConfirmed | 'taken' | 'sign-in-needed' | null>;
  /** Stores the message and, when `mail` is given, queues it: both or neither. */
  addContact(message: ContactMessage, mail: OutgoingMail | null): Promise<void>;
  /**
   * Turns the pending TOTP factor sealed as `sealedSecret` on (recording `step` as used), replaces
   * the recovery codes with `recoveryDigests`, moves the generation on from `generation` and ends
   * every session but `keep`, and queues `notice`: one unit of work. The ended sessions' digests,
   * or `null` (nothing changes) when the generation moved on or the enrolment is no longer that one.
   */
  enableTotp(userId: number, generation: number, sealedSecret: string, step: number, recoveryDigests: readonly string[], keep: string | null, notice?: AccountMail | null, event?: Event): Promise<readonly string[] | null>;
  /**
   * Deletes the TOTP factor and the recovery codes (kept when `keepRecoveryCodes`: another factor,
   * a passkey, is still on), moves the generation on from `generation`, ends every session but
   * `keep` and queues `notice`: the ended digests, or `null` (nothing changes) when the generation
   * moved on.
   */
  disableTotp(userId: number, generation: number, keep: string | null, notice?: AccountMail | null, keepRecoveryCodes?: boolean, event?: Event): Promise<readonly string[] | null>;
  /**
   * Replaces the user's recovery codes with these digests, queues `notice` and records `event`, while
   * the generation is still `generation` (the one the proof was checked against), which it moves on,
   * and the session `keep` that asked still stands: whether it did.
   */
  renewRecoveryCodes(userId: number, generation: number, recoveryDigests: readonly string[], keep: string | null, notice?: AccountMail | null, event?: Event): Promise<boolean>;
  /**
   * Uses the user's recovery code with this digest and queues `notice(left)` to the user's address:
   * how many are left, or `null` when the user has no such code (of concurrent uses, one gets it).
   */
  useRecoveryCode(userId: number, digest: string, notice: (left: number) => AccountMail | null, event?: Event): Promise<number | null>;
  /**
   * Adds a passkey to the user while the generation is still `generation` (the one read when the
   * registration was verified), moves it on, ends every session of the user but `keep` and queues
   * `notice`, in one unit of work: the ended sessions' digests; `null` when the generation moved on
   * (nothing changes); `'taken'` when a passkey with that credential ID is stored already (nothing
   * changes). `recoveryDigests`, when given (the account's first factor), replace its recovery
   * codes in the same unit.
   */
  addPasskey(passkey: Passkey, generation: number, keep: string | null, notice?: AccountMail | null, recoveryDigests?: readonly string[] | null, event?: Event): Promise<readonly string[] | 'taken' | null>;
  /**
   * Removes the user's passkey with this id while the generation is still `generation`, moves it
   * on, ends every session of the user but `keep` and queues `notice`, in one unit of work: the
   * ended sessions' digests; `null` when the generation moved on; `'missing'` when the user has no
   * such passkey (then nothing changes). `lastFactor`: the recovery codes go too (no factor is
   * left for them to stand in for), as when TOTP is turned off.
   */
  /**
   * Makes an account through an identity provider: the user (verified when the provider asserts its
   * address), its identity, and the verification link when it is not, in one unit of work. `'email'`
   * when the address is an account's, `'identity'` when the identity is (a concurrent first sign-in
   * of the same person won): then nothing is written.
   */
  signUpWithIdentity(user: NewUser & { readonly emailVerified: boolean }, identity: Omit<Identity, 'userId'>, verification?: EmailLink, event?: Event): Promise<User | 'email' | 'identity'>;
  /**
   * Links an identity to the account while it is at `generation`: moves the generation on (a new way
   * in is a change of credential), stores the identity, queues the notice and ends every session
   * but `keep`; the ended digests, `'taken'` when the identity is any account's or the account has
   * one at its provider (nothing is written), `null` when the generation moved.
   */
  linkIdentity(identity: Identity, generation: number, keep: string | null, notice?: AccountMail | null, event?: Event): Promise<readonly string[] | 'taken' | null>;
  /**
   * Unlinks the account's identity at `provider` while it is at `generation`, unless the account
   * would be left no way in (no password, no passkey, no other identity): `'last'`; `'missing'` when
   * it has none there; `null` when the generation moved; else the ended digests (all but `keep`).
   */
  unlinkIdentity(userId: number, provider: string, generation: number, keep: string | null, notice?: AccountMail | null, event?: Event): Promise<readonly string[] | 'missing' | 'last' | null>;
  removePasskey(userId: number, id: string, generation: number, keep: string | null, notice?: AccountMail | null, lastFactor?: boolean, event?: Event): Promise<readonly string[] | 'missing' | null>;
  /**
   * Locks the account (issue 43): marks it locked, moves the generation on (a login or a challenge
   * in flight stores nothing: a lock racing a login leaves no session), ends every session and
   * records `event`, in one unit of work. The ended sessions' digests; `null` when there is no such user.
   */
  lockAccount(userId: number, event: ActivityEntry): Promise<readonly string[] | null>;
  /** Unlocks the account and records `event`: the user as it is now, or `null` when there is no such user. */
  unlockAccount(userId: number, event: ActivityEntry): Promise<User | null>;
  /** Ends every session of the user and records `event`: the ended digests, or `null` when there is no such user. */
  endAllSessions(userId: number, event: ActivityEntry): Promise<readonly string[] | null>;
  /**
   * Removes every second factor of the user (TOTP, recovery codes, passkeys), moves the generation
   * on, ends every session, queues `notice` and records `event`, in one unit of work (a person who
   * lost their authenticator): the ended digests, or `null` when there is no such user.
   */
  removeSecondFactors(userId: number, event: ActivityEntry, notice?: AccountMail | null): Promise<readonly string[] | null>;
  /** Records `event` for the user on its own (an action that changes nothing stored: a reset link sent, an export). */
  record(userId: number | null, event: ActivityEntry): Promise<void>;
}

/** An event to record with a change, or none. */
type Event = ActivityEntry | null | undefined;

/** Appends `event` for `userId` through `tx`, if there is one. */
async function log(tx: Repositories, userId: number | null, event: Event): Promise<void> {
  if (event) await tx.activity.append({ ...event, userId });
}

/** Thrown inside a unit of work to undo what it wrote, and caught at its end: `reason` is the answer. */
class Undo<R> extends Error {
  readonly reason: R;
  constructor(reason: R) {
    super('undone');
    this.reason = reason;
  }
}

/** Thrown inside a unit of work to roll it back when a compare-and-set after its first write fails. */
class Abandoned extends Error {}

/** A user as the ports give it out, without what stays inside the core. */
export const toUser = (record: UserRecord): User => ({ id: record.id, name: record.name, email: record.email, emailVerified: record.emailVerified });

/** `notice`, addressed. */
const addressed = (notice: AccountMail, to: string) => ({ ...notice, to });

/** Before any session: `listByUser` with this `now` lists expired sessions too. */
const EVER = new Date(0);

/** Stores the account's e-mail link token in its one slot (the newest replaces the one before), under its generation. */
const putEmailToken = (tx: Repositories, userId: number, token: Omit<OneTimeToken, 'userId'>) => tx.oneTimeTokens.put({ ...token, userId }, { underGeneration: true, slot: `email:${userId}` });

/**
 * Ends the user's sessions but `keep`, the session that made the change, once that session is seen to
 * stand: a change checked while its session was alive, whose session another change ended before this
 * unit locked the row (a password change, a lock, the operator ending every session), is undone
 * (`null`), so a session that lost its standing changes nothing.
 */
async function endOthers(tx: Repositories, userId: number, keep: string | null): Promise<readonly string[]> {
  if (!(await stands(tx, keep))) throw new Undo(null);
  return tx.sessions.deleteByUser(userId, { except: keep });
}

/**
 * Locks the account's row for the rest of the unit of work, changing nothing (a compare-and-set of the
 * generation on itself, read again if it moved meanwhile): `null` when there is no such account. What
 * ends sessions takes it first, so a change in flight that checks its session (`stands`) after its own
 * compare-and-set sees the session either ended or standing until that change commits.
 */
async function lockRow(tx: Repositories, userId: number): Promise<UserRecord | null> {
  for (;;) {
    const user = await tx.users.findById(userId);
    if (!user) return null;
    const locked = await tx.users.update(userId, { credentialGeneration: user.credentialGeneration }, { credentialGeneration: user.credentialGeneration });
    if (locked) return locked;
  }
}

/** Removes the user's second factors: TOTP (on or pending), recovery codes and passkeys. */
async function removeSecondFactors(tx: Repositories, userId: number): Promise<void> {
  await tx.totp.delete(userId);
  await tx.recoveryCodes.replace(userId, []);
  for (const passkey of await tx.passkeys.listByUser(userId)) await tx.passkeys.delete(userId, passkey.id);
}

/** Removes every way in but the password: the second factors and the identities linked. */
async function removeWaysIn(tx: Repositories, userId: number): Promise<void> {
  await removeSecondFactors(tx, userId);
  for (const identity of await tx.identities.listByUser(userId)) await tx.identities.delete(userId, identity.provider);
}

/** Whether the session with digest `digest` exists and is the user's, unexpired at `now`. */
async function signedInAs(tx: Repositories, userId: number, digest: string | null, now: Date): Promise<boolean> {
  const session = digest === null ? null : await tx.sessions.findWithUser(digest);
  return session !== null && session.user.id === userId && session.expiresAt > now;
}

/** The first of `presented` (session digests a request carried) that is a live session of the user, or `null`. */
async function sessionOf(tx: Repositories, userId: number, presented: readonly string[], now: Date): Promise<string | null> {
  for (const digest of presented) if (await signedInAs(tx, userId, digest, now)) return digest;
  return null;
}

/** Whether the session with digest `by`, which asked for a change, still exists (no session named: yes). */
async function stands(tx: Repositories, by: string | null | undefined): Promise<boolean> {
  return by === null || by === undefined || (await tx.sessions.findWithUser(by)) !== null;
}

export function createAccountManager(store: ManagedStore): AccountManager {
  /** Sessions a unit of work ended: a cache in front of the store forgets them now, not at the feed's pace. */
  const forget = (digests: readonly string[]) => {
    if (digests.length > 0) store.forget?.(digests);
  };
  /**
   * The user's row changed (a name, an address, its verification): a cache in front of the store
   * forgets the user's sessions now (other processes hear it through the revocation feed).
   */
  const forgetUser = async (userId: number) => {
    if (store.forget) forget((await store.sessions.listByUser(userId, EVER)).map((s) => s.tokenDigest));
  };
  /** Runs a unit of work that answers whether it wrote: `false`, rolled back, when it throws `Abandoned`. */
  const unlessAbandoned = async (work: (tx: Repositories) => Promise<boolean>): Promise<boolean> => {
    try {
      return await store.transaction(work);
    } catch (error) {
      if (error instanceof Abandoned) return false;
      throw error;
    }
  };
  /**
   * Runs a unit of work that ends sessions, and forgets them once it committed. A unit that throws
   * `Undo` is rolled back and answers the undo's reason: `null` (`endOthers`), or one of `U`.
   */
  const ending = async <T, U = never>(work: (tx: Repositories) => Promise<T>, ended: (result: T) => readonly string[]): Promise<T | U | null> => {
    try {
      const result = await store.transaction(work);
      forget(ended(result));
      return result;
    } catch (error) {
      if (error instanceof Undo) return error.reason as U | null;
      throw error;
    }
  };

  return {
    async signUp(user, verification, event) {
      if (!verification && !event) {
        const record = await store.users.insert(user);
        return record && toUser(record);
      }
      return store.transaction(async (tx) => {
        const record = await tx.users.insert(user);
        if (!record) return null;
        if (verification) {
          // At the first generation, which the row just inserted holds: always written.
          await putEmailToken(tx, record.id, verification.token);
          for (const mail of verification.mails) await tx.outbox.add({ ...mail, queuedAt: verification.token.createdAt });
        }
        await log(tx, record.id, event);
        return toUser(record);
      });
    },

    async startSession(session, maxPerUser, notice, event) {
      if (maxPerUser === undefined && !notice && !event) return store.sessions.insert(session);
      const trimmed = await ending(
        async (tx) => {
          // The insert locks the user's row: no change of address (which moves the generation) or
          // other login of the user comes between it and the commit.
          if (!(await tx.sessions.insert(session))) return null;
          if (notice) {
            const owner = await tx.users.findById(session.userId);
            if (owner) await tx.outbox.add(addressed(notice, owner.email));
          }
          await log(tx, session.userId, event);
          if (maxPerUser === undefined) return [];
          return tx.sessions.deleteByUser(session.userId, { except: session.tokenDigest, keepNewest: maxPerUser - 1 });
        },
        (ended) => ended ?? [],
      );
      return trimmed !== null;
    },

    async replaceHash(userId, generation, passwordHash) {
      // The generation is the condition, not a change: a rehash changes no credential.
      return (await store.users.update(userId, { passwordHash }, { credentialGeneration: generation })) !== null;
    },

    async rename(userId, name, event) {
      const record = event
        ? await store.transaction(async (tx) => {
            const updated = await tx.users.update(userId, { name });
            if (updated) await log(tx, userId, event);
            return updated;
          })
        : await store.users.update(userId, { name });
      if (!record) return null;
      await forgetUser(userId);
      return toUser(record);
    },

    changePassword(userId, generation, passwordHash, keep, notice, event) {
      return ending(
        async (tx) => {
          // The compare-and-set locks the row first: a login waiting on it then finds the new
          // generation and stores nothing; one that got the lock first has committed, and its
          // session is among those ended below. A reset token dies with the generation it names.
          const user = await tx.users.update(userId, { passwordHash, credentialGeneration: generation + 1 }, { credentialGeneration: generation });
          if (!user) return null;
          if (notice) await tx.outbox.add(addressed(notice, user.email));
          await log(tx, userId, event);
          return endOthers(tx, userId, keep);
        },
        (ended) => ended ?? [],
      );
    },

    deleteAccount(userId, generation, notice, event, by) {
      return ending(
        async (tx) => {
          // Moved on first, as a change of credential: the row is locked and any login in flight stale.
          const user = await tx.users.update(userId, { credentialGeneration: generation + 1 }, { credentialGeneration: generation });
          if (!user) return null;
          // Asked by a session that was ended meanwhile (the operator, the owner's "end that session"): nothing goes.
          if (!(await stands(tx, by))) throw new Undo(null);
          if (notice) await tx.outbox.add(addressed(notice, user.email));
          // Named before the user goes, so they can be reported.
          const ended = await tx.sessions.deleteByUser(userId);
          await tx.users.delete(userId);
          await log(tx, userId, event);
          return ended;
        },
        (ended) => ended ?? [],
      );
    },

    async endSession(userId, id, event) {
      if (event) {
        const digest = await store.transaction(async (tx) => {
          if (!(await lockRow(tx, userId))) return null;
          const found = (await tx.sessions.listByUser(userId, EVER)).find((s) => s.id === id);
          if (!found || !(await tx.sessions.delete(found.tokenDigest))) return null;
          await log(tx, userId, event);
          return found.tokenDigest;
        });
        if (digest) forget([digest]);
        return digest;
      }
      const listed = (await store.sessions.listByUser(userId, EVER)).find((s) => s.id === id);
      if (!listed || !(await store.sessions.delete(listed.tokenDigest))) return null;
      forget([listed.tokenDigest]);
      return listed.tokenDigest;
    },

    async requestReset(email, reset, mail) {
      // Three statements and no unit of work, the same whatever the address: a token bound to a
      // generation that moves on before it is written is void, one bound to no account opens nothing
      // whoever signs up later, and the mail is queued only once its token is stored (a token whose
      // mail failed to queue is one nobody knows). On PGlite's one connection, what runs after the
      // answer holds up the client's next request: BEGIN and COMMIT would add two round trips.
      const user = await store.users.findByEmail(email);
      const { tokenDigest: digest, createdAt, expiresAt } = reset;
      const stored = await store.oneTimeTokens.put(
        { digest, purpose: 'password-reset', email, userId: user?.id ?? null, credentialGeneration: user?.credentialGeneration ?? null, data: null, failures: 0, createdAt, expiresAt },
        { slot: `reset:${email}` },
      );
      // Not stored only when the account was deleted since it was read: then it is as if there was none.
      const known = user !== null && stored;
      await store.outbox.add({ ...mail, to: known ? mail.to : null, queuedAt: reset.createdAt });
      return known;
    },

    completeReset(tokenDigest, now, passwordHash, notice, event, options = {}) {
      return ending(
        async (tx) => {
          const token = await tx.oneTimeTokens.take('password-reset', tokenDigest, now);
          if (!token || token.userId === null || token.credentialGeneration === null) return null;
          // An account whose address nobody proved yet is its inbox owner's, whatever its sessions did
          // since the link was mailed: its maker, who knows the password, could otherwise void every
          // reset by changing the password (which moves the generation) each time one is asked for.
          // Still unverified, at the token's address: checked again by the compare-and-set, read again
          // when a change moved the generation in between.
          let user: UserRecord | null = null;
          let unverified: UserRecord | null = null;
          while (!user) {
            const current = await tx.users.findById(token.userId);
            const claimed = options.claimUnverified === true && current !== null && !current.emailVerified && current.email === token.email;
            // Else a token asked for under an older generation is void (its use above is kept).
            const generation = claimed ? current.credentialGeneration : token.credentialGeneration;
            const changes = { passwordHash, credentialGeneration: generation + 1, emailVerified: true };
            // Whether the address was unverified is the compare of the first try, so the change is one step with it.
            unverified = await tx.users.update(token.userId, changes, { credentialGeneration: generation, emailVerified: false, ...(claimed ? { email: token.email } : {}) });
            // A verified account is held to the token's generation: read again (no longer claimed) when it became one meanwhile.
            user = unverified ?? (claimed ? null : await tx.users.update(token.userId, changes, { credentialGeneration: generation, emailVerified: true }));
            if (!user && !claimed) return null;
          }
          // The inbox's owner takes the account: every way in added while nobody had proven the address
          // goes (a pre-account takeover: whoever made the account with someone else's address, with a
          // password or at a provider that does not verify addresses; ADR 56, rule 4), so the new
          // password is its one way in. An address is unverified only until its first proof.
          if (unverified) await removeWaysIn(tx, user.id);
          if (notice) await tx.outbox.add(addressed(notice, user.email));
          await log(tx, user.id, event);
          return { userId: user.id, email: user.email, endedSessions: await tx.sessions.deleteByUser(user.id) };
        },
        (done) => done?.endedSessions ?? [],
      );
    },

    requestEmailLink(userId, link, event, by) {
      return unlessAbandoned(async (tx) => {
        if (!(await putEmailToken(tx, userId, link.token))) return false;
        // The put locked the account's row; a link asked by a session ended meanwhile is undone.
        if (!(await stands(tx, by))) throw new Abandoned();
        for (const mail of link.mails) await tx.outbox.add({ ...mail, queuedAt: link.token.createdAt });
        await log(tx, userId, event);
        return true;
      });
    },

    async confirmEmailLink(tokenDigest, now, presented, mails, event, options = {}) {
      const digests = presented === null ? [] : typeof presented === 'string' ? [presented] : presented;
      let confirmed: EmailConfirmed | 'sign-in-needed' | null;
      try {
        confirmed = await ending<EmailConfirmed | null, 'sign-in-needed'>(
          async (tx) => {
            const taken = await tx.oneTimeTokens.take(['verify-email', 'change-email'], tokenDigest, now);
            if (!taken || taken.userId === null || taken.email === null || taken.credentialGeneration === null) return null;
            const token = { ...taken, userId: taken.userId, email: taken.email };
            let done: EmailConfirmed;
            if (token.purpose === 'verify-email') {
              // Mailed to an address the account no longer has: it proves nothing about the one it
              // has. Whether it was proven already is the compare of the first try, so the answer
              // says what the row held when it changed.
              // Bound to the generation it was mailed under, as every link: a change of credential, a
              // lock or a factor removed since voids it (ADR 57).
              const expected = { email: token.email, emailVerified: false, credentialGeneration: taken.credentialGeneration };
              let user = await tx.users.update(token.userId, { emailVerified: true }, expected);
              const previousEmailVerified = user === null;
              user ??= await tx.users.update(token.userId, { emailVerified: true }, { ...expected, emailVerified: true });
              if (!user) return null;
              // A link proves the inbox, not who holds the account: whoever made it with someone else's
              // address knows its password and may have added ways in, before the proof or after it.
              // Proven without one of the account's sessions, the account would be verified with them,
              // and its inbox owner's reset (which removes them from an unverified account only) would
              // leave them. So the proof counts only with a session of the account (a pre-account
              // takeover; ADR 56, rule 4); without one the inbox's owner resets the password instead.
              if (options.requireSession && !previousEmailVerified && (await sessionOf(tx, user.id, digests, now)) === null) throw new Undo('sign-in-needed' as const);
              done = { purpose: 'verify', user: toUser(user), previousEmail: user.email, previousEmailVerified, endedSessions: [] };
            } else {
              // The generation's move first: the compare-and-set locks the row and answers its address
              // and verification as they are now, which nothing can change before the unit ends.
              const generation = taken.credentialGeneration;
              const before = await tx.users.update(token.userId, { credentialGeneration: generation + 1 }, { credentialGeneration: generation });
              if (!before) return null;
              // A move proves the new inbox and hands it an account whose ways in its owner did not add,
              // so, as a verification, only with one of the account's sessions (a move to a victim's
              // address pressed by the victim would give the victim's address an account the mover holds).
              // The session kept is the account's among those presented (a stale or another account's cookie first is passed over).
              const keep = await sessionOf(tx, before.id, digests, now);
              if (options.requireSession && keep === null) throw new Undo('sign-in-needed' as const);
              // The unique index decides (EmailTaken): a concurrent move or signup to the address
              // either committed first or waits for this unit and then finds it taken.
              const user = (await tx.users.update(token.userId, { email: token.email, emailVerified: true }))!;
              const endedSessions = await tx.sessions.deleteByUser(user.id, { except: keep });
              done = { purpose: 'change', user: toUser(user), previousEmail: before.email, previousEmailVerified: before.emailVerified, endedSessions };
            }
            for (const mail of mails(done)) await tx.outbox.add({ ...mail, queuedAt: now });
            await log(tx, done.user.id, event?.(done));
            return done;
          },
          (done) => done?.endedSessions ?? [],
        );
      } catch (error) {
        if (error instanceof EmailTaken) return 'taken';
        throw error;
      }
      if (confirmed && confirmed !== 'sign-in-needed') await forgetUser(confirmed.user.id);
      return confirmed;
    },

    async enableTotp(userId, generation, sealedSecret, step, recoveryDigests, keep, notice, event) {
      try {
        return await ending(
          async (tx) => {
            // The generation first: it locks the row, so a concurrent disable or password change waits.
            const user = await tx.users.update(userId, { credentialGeneration: generation + 1 }, { credentialGeneration: generation });
            if (!user) return null;
            if (!(await tx.totp.enable(userId, sealedSecret, step))) throw new Abandoned();
            await tx.recoveryCodes.replace(userId, recoveryDigests);
            if (notice) await tx.outbox.add(addressed(notice, user.email));
            await log(tx, userId, event);
            return endOthers(tx, userId, keep);
          },
          (ended) => ended ?? [],
        );
      } catch (error) {
        if (error instanceof Abandoned) return null;
        throw error;
      }
    },

    disableTotp(userId, generation, keep, notice, keepRecoveryCodes = false, event) {
      return ending(
        async (tx) => {
          const user = await tx.users.update(userId, { credentialGeneration: generation + 1 }, { credentialGeneration: generation });
          if (!user) return null;
          await tx.totp.delete(userId);
          if (!keepRecoveryCodes) await tx.recoveryCodes.replace(userId, []);
          if (notice) await tx.outbox.add(addressed(notice, user.email));
          await log(tx, userId, event);
          return endOthers(tx, userId, keep);
        },
        (ended) => ended ?? [],
      );
    },

    renewRecoveryCodes(userId, generation, recoveryDigests, keep, notice, event) {
      return unlessAbandoned(async (tx) => {
        // Moved on, as a change of credential: the compare-and-set locks the row, so of a factor's
        // removal, a password change or another renewal racing this one, exactly one writes (a login
        // challenge or link in flight is void, as after any change of credential).
        const user = await tx.users.update(userId, { credentialGeneration: generation + 1 }, { credentialGeneration: generation });
        if (!user) return false;
        if (!(await stands(tx, keep))) throw new Abandoned();
        await tx.recoveryCodes.replace(userId, recoveryDigests);
        if (notice) await tx.outbox.add(addressed(notice, user.email));
        await log(tx, userId, event);
        return true;
      });
    },

    useRecoveryCode(userId, digest, notice, event) {
      return store.transaction(async (tx) => {
        const left = await tx.recoveryCodes.use(userId, digest);
        if (left === null) return null;
        const user = await tx.users.findById(userId);
        const mail = notice(left);
        if (user && mail) await tx.outbox.add(addressed(mail, user.email));
        await log(tx, userId, event && { ...event, details: { ...event.details, left } });
        return left;
      });
    },

    addPasskey(passkey, generation, keep, notice, recoveryDigests = null, event = null) {
      return ending<readonly string[] | null, 'taken'>(
        async (tx) => {
          // The generation's move first: it locks the row, so the insert below sees the move and
          // no session is stored under the old generation after this unit ends the others.
          const user = await tx.users.update(passkey.userId, { credentialGeneration: generation + 1 }, { credentialGeneration: generation });
          if (!user) return null;
          if (!(await tx.passkeys.insert(passkey, generation + 1))) throw new Undo('taken' as const);
          if (recoveryDigests) await tx.recoveryCodes.replace(passkey.userId, recoveryDigests);
          if (notice) await tx.outbox.add(addressed(notice, user.email));
          await log(tx, passkey.userId, event);
          return endOthers(tx, passkey.userId, keep);
        },
        (ended) => ended ?? [],
      );
    },

    removePasskey(userId, id, generation, keep, notice, lastFactor = false, event = null) {
      return ending<readonly string[] | null, 'missing'>(
        async (tx) => {
          const user = await tx.users.update(userId, { credentialGeneration: generation + 1 }, { credentialGeneration: generation });
          if (!user) return null;
          if (!(await tx.passkeys.delete(userId, id))) throw new Undo('missing' as const);
          if (lastFactor) await tx.recoveryCodes.replace(userId, []);
          if (notice) await tx.outbox.add(addressed(notice, user.email));
          await log(tx, userId, event);
          return endOthers(tx, userId, keep);
        },
        (ended) => ended ?? [],
      );
    },

    async signUpWithIdentity(user, identity, verification, event) {
      try {
        return await store.transaction(async (tx) => {
          const inserted = await tx.users.insert(user);
          if (!inserted) throw new Undo('email' as const);
          const record = user.emailVerified ? ((await tx.users.update(inserted.id, { emailVerified: true })) ?? inserted) : inserted;
          // The unique index on issuer and subject decides between two first sign-ins of one person.
          if (!(await tx.identities.insert({ ...identity, userId: record.id }, record.credentialGeneration))) throw new Undo('identity' as const);
          if (verification) {
            await putEmailToken(tx, record.id, verification.token);
            for (const mail of verification.mails) await tx.outbox.add({ ...mail, queuedAt: verification.token.createdAt });
          }
          await log(tx, record.id, event);
          return toUser(record);
        });
      } catch (error) {
        if (error instanceof Undo) return error.reason as 'email' | 'identity';
        throw error;
      }
    },

    linkIdentity(identity, generation, keep, notice, event) {
      return ending<readonly string[] | null, 'taken'>(
        async (tx) => {
          const user = await tx.users.update(identity.userId, { credentialGeneration: generation + 1 }, { credentialGeneration: generation });
          if (!user) return null;
          if (!(await tx.identities.insert(identity, generation + 1))) throw new Undo('taken' as const);
          if (notice) await tx.outbox.add(addressed(notice, user.email));
          await log(tx, identity.userId, event);
          return endOthers(tx, identity.userId, keep);
        },
        (ended) => ended ?? [],
      );
    },

    unlinkIdentity(userId, provider, generation, keep, notice, event) {
      return ending<readonly string[] | null, 'missing' | 'last'>(
        async (tx) => {
          // The generation first: it locks the row, so of two unlinks (or an unlink and a passkey's
          // removal) the second sees what the first left, and never both take the last two ways in.
          const user = await tx.users.update(userId, { credentialGeneration: generation + 1 }, { credentialGeneration: generation });
          if (!user) return null;
          if (!(await tx.identities.delete(userId, provider))) throw new Undo('missing' as const);
          const waysLeft = user.passwordHash !== NO_PASSWORD || (await tx.passkeys.listByUser(userId)).length > 0 || (await tx.identities.listByUser(userId)).length > 0;
          if (!waysLeft) throw new Undo('last' as const);
          if (notice) await tx.outbox.add(addressed(notice, user.email));
          await log(tx, userId, event);
          return endOthers(tx, userId, keep);
        },
        (ended) => ended ?? [],
      );
    },

    async lockAccount(userId, event) {
      // The generation read here is the compare of the move: a change that moved it meanwhile
      // makes the move find nothing, and the lock is tried again on the row as it is then.
      for (;;) {
        const result = await ending(
          async (tx) => {
            const before = await tx.users.findById(userId);
            if (!before) return null;
            const user = await tx.users.update(userId, { locked: true, credentialGeneration: before.credentialGeneration + 1 }, { credentialGeneration: before.credentialGeneration });
            if (!user) return 'moved' as const;
            const ended = await tx.sessions.deleteByUser(userId);
            await log(tx, userId, event);
            return ended;
          },
          (ended) => (Array.isArray(ended) ? ended : []),
        );
        if (result !== 'moved') return result;
      }
    },

    async unlockAccount(userId, event) {
      const user = await store.transaction(async (tx) => {
        const updated = await tx.users.update(userId, { locked: false });
        if (updated) await log(tx, userId, event);
        return updated;
      });
      return user && toUser(user);
    },

    endAllSessions(userId, event) {
      return ending(
        async (tx) => {
          if (!(await lockRow(tx, userId))) return null;
          const ended = await tx.sessions.deleteByUser(userId);
          await log(tx, userId, { ...event, details: { ...event.details, sessions: ended.length } });
          return ended;
        },
        (ended) => ended ?? [],
      );
    },

    async removeSecondFactors(userId, event, notice) {
      for (;;) {
        const result = await ending(
          async (tx) => {
            const before = await tx.users.findById(userId);
            if (!before) return null;
            const user = await tx.users.update(userId, { credentialGeneration: before.credentialGeneration + 1 }, { credentialGeneration: before.credentialGeneration });
            if (!user) return 'moved' as const;
            await removeSecondFactors(tx, userId);
            if (notice) await tx.outbox.add(addressed(notice, user.email));
            await log(tx, userId, event);
            return tx.sessions.deleteByUser(userId);
          },
          (ended) => (Array.isArray(ended) ? ended : []),
        );
        if (result !== 'moved') return result;
      }
    },

    async record(userId, event) {
      await store.activity.append({ ...event, userId });
    },

    async addContact(message, mail) {
      if (!mail) return store.contacts.add(message);
      await store.transaction(async (tx) => {
        await tx.contacts.add(message);
        await tx.outbox.add({ ...mail, queuedAt: message.receivedAt });
      });
    },
  };
}
