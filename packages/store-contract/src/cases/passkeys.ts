import { expect, it } from 'vitest';
import { PASSKEY_CHALLENGES_PER_ACCOUNT, type OneTimeToken, type OneTimeTokenPurpose, type Passkey, type Store } from '@sl-accounts/service/core';
import type { CurrentStore } from '../current-store.ts';
import { addSession, addUser, at, DAY, digest, G0, MINUTE, oneTime, T0 } from '../fixtures.ts';

const G1 = G0 + 1;

/** Stores session `n` of `userId` under `generation` (addSession's, at any generation). */
async function sessionAt(accounts: CurrentStore['accounts'], userId: number, n: number, generation: number): Promise<void> {
  if (!(await accounts.startSession({ tokenDigest: digest(n), userId, credentialGeneration: generation, createdAt: at(n), expiresAt: at(DAY) }))) throw new Error(`session ${n} was not created`);
}

/** A passkey of `userId`: its id is `key-<n>`, its key bytes n, n+1, …; never used. */
const passkey = (userId: number, n: number, counter = 0): Passkey => ({
  id: `key-${n}`,
  userId,
  name: `Key ${n}`,
  publicKey: new Uint8Array([n, n + 1, n + 2, 0, 255]),
  counter,
  transports: ['internal', 'hybrid'],
  createdAt: at(n * MINUTE),
  lastUsedAt: null,
});

type PasskeyChallenge = OneTimeToken;

/** The purposes of WebAuthn challenges, as the core takes and bounds them. */
const PASSKEY: readonly OneTimeTokenPurpose[] = ['passkey-register', 'passkey-sign-in', 'passkey-second-factor', 'passkey-step-up'];

/** A challenge of `purpose` for `userId`, valid five minutes from T0. */
const challenge = (n: number, purpose: 'register' | 'sign-in' | 'second-factor' | 'step-up', userId: number | null): PasskeyChallenge =>
  oneTime(5000 + n, `passkey-${purpose}`, userId, { credentialGeneration: null, expiresAt: at(5 * MINUTE) });

/** Puts a challenge as the core does: an account keeps its newest PASSKEY_CHALLENGES_PER_ACCOUNT. */
const putChallenge = (store: Store, c: PasskeyChallenge) => store.oneTimeTokens.put(c, c.userId === null ? {} : { keepNewest: { purposes: PASSKEY, count: PASSKEY_CHALLENGES_PER_ACCOUNT } });

/** Takes a WebAuthn challenge of any ceremony, as the core does. */
const takeChallenge = (store: Store, d: string, now: Date) => store.oneTimeTokens.take(PASSKEY, d, now);

/** Passkeys and their challenges: what the WebAuthn ceremonies rely on. */
export function passkeyCases(current: CurrentStore): void {
  it('a passkey round-trips (key bytes, counter, transports, times), lists oldest first, renames and deletes only as its owner’s', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const bob = await addUser(accounts, 'bob@example.com', 'Bob');
    expect(await store.passkeys.insert(passkey(ada.id, 2, 7), G0)).toBe(true);
    expect(await store.passkeys.insert(passkey(ada.id, 1), G0)).toBe(true);
    expect(await store.passkeys.findById('key-2')).toEqual(passkey(ada.id, 2, 7));
    expect((await store.passkeys.findById('key-2'))!.publicKey).toBeInstanceOf(Uint8Array);
    expect(await store.passkeys.findById('key-3')).toBeNull();
    expect((await store.passkeys.listByUser(ada.id)).map((p) => p.id)).toEqual(['key-1', 'key-2']);
    expect(await store.passkeys.listByUser(bob.id)).toEqual([]);
    // Bob can neither rename nor delete Ada's.
    expect(await store.passkeys.rename(bob.id, 'key-1', 'Mine')).toBe(false);
    expect(await store.passkeys.delete(bob.id, 'key-1')).toBe(false);
    expect(await store.passkeys.rename(ada.id, 'key-1', 'Laptop')).toBe(true);
    expect((await store.passkeys.findById('key-1'))!.name).toBe('Laptop');
    expect(await store.passkeys.delete(ada.id, 'key-1')).toBe(true);
    expect(await store.passkeys.delete(ada.id, 'key-1')).toBe(false);
    expect(await store.passkeys.findById('key-1')).toBeNull();
  });

  it('a passkey is stored only under the user’s current generation, and an id is nobody else’s', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const bob = await addUser(accounts, 'bob@example.com', 'Bob');
    expect(await store.passkeys.insert(passkey(ada.id, 1), G1)).toBe(false);
    expect(await store.passkeys.insert(passkey(ada.id + 1000, 1), G0)).toBe(false);
    expect(await store.passkeys.insert(passkey(ada.id, 1), G0)).toBe(true);
    // The same credential ID for Bob (a replayed registration): refused, Ada's stays.
    expect(await store.passkeys.insert(passkey(bob.id, 1), G0)).toBe(false);
    expect((await store.passkeys.findById('key-1'))!.userId).toBe(ada.id);
  });

  it('adding a passkey moves the generation, ends every other session and queues the notice; a stale generation or a taken id changes nothing', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(DAY));
    await addSession(accounts, ada.id, 2, at(DAY));
    const notice = { kind: 'security' as const, subject: 'A passkey was added', text: 'added', queuedAt: T0 };
    expect(await accounts.addPasskey(passkey(ada.id, 1), G0, digest(1), notice)).toEqual([digest(2)]);
    expect((await store.users.findById(ada.id))!.credentialGeneration).toBe(G1);
    expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
    expect((await store.outbox.claim(T0, { limit: 10, leaseMs: MINUTE })).map((m) => [m.to, m.subject])).toEqual([['ada@example.com', 'A passkey was added']]);
    // Stale: nothing is stored, the generation stays.
    expect(await accounts.addPasskey(passkey(ada.id, 2), G0, digest(1), notice)).toBeNull();
    expect(await store.passkeys.findById('key-2')).toBeNull();
    // Taken: the generation's move is undone with it, no session ends, no mail is queued.
    await sessionAt(accounts, ada.id, 3, G1);
    expect(await accounts.addPasskey(passkey(ada.id, 1), G1, digest(1), notice)).toBe('taken');
    expect((await store.users.findById(ada.id))!.credentialGeneration).toBe(G1);
    expect(await store.sessions.findWithUser(digest(3))).not.toBeNull();
    expect(await store.outbox.depth()).toBe(1);
  });

  it('removing a passkey moves the generation and ends other sessions; one the user does not have changes nothing', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const bob = await addUser(accounts, 'bob@example.com', 'Bob');
    expect(await accounts.addPasskey(passkey(ada.id, 1), G0, null)).toEqual([]);
    await sessionAt(accounts, ada.id, 1, G1);
    await sessionAt(accounts, ada.id, 2, G1);
    expect(await accounts.removePasskey(bob.id, 'key-1', G0, null)).toBe('missing');
    expect(await accounts.removePasskey(ada.id, 'key-1', G0, null)).toBeNull();
    expect(await accounts.removePasskey(ada.id, 'key-9', G1, null)).toBe('missing');
    expect((await store.users.findById(ada.id))!.credentialGeneration).toBe(G1);
    expect(await accounts.removePasskey(ada.id, 'key-1', G1, digest(2))).toEqual([digest(1)]);
    expect((await store.users.findById(ada.id))!.credentialGeneration).toBe(G1 + 1);
    expect(await store.passkeys.findById('key-1')).toBeNull();
  });

  it('a use records the counter only forward (or 0 after 0), and never for a removed passkey', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    expect(await store.passkeys.insert(passkey(ada.id, 1, 5), G0)).toBe(true);
    expect(await store.passkeys.recordUse('key-1', 5, at(1))).toBe(false);
    expect(await store.passkeys.recordUse('key-1', 4, at(1))).toBe(false);
    expect(await store.passkeys.recordUse('key-1', 6, at(2))).toBe(true);
    expect(await store.passkeys.findById('key-1')).toMatchObject({ counter: 6, lastUsedAt: at(2) });
    // Past 2^31: a signature counter is 32 bits unsigned.
    expect(await store.passkeys.recordUse('key-1', 4_294_967_295, at(3))).toBe(true);
    expect((await store.passkeys.findById('key-1'))!.counter).toBe(4_294_967_295);
    // An authenticator that does not count stays at 0 and is used again and again.
    expect(await store.passkeys.insert(passkey(ada.id, 2, 0), G0)).toBe(true);
    expect(await store.passkeys.recordUse('key-2', 0, at(4))).toBe(true);
    expect(await store.passkeys.recordUse('key-2', 0, at(5))).toBe(true);
    expect(await store.passkeys.delete(ada.id, 'key-2')).toBe(true);
    expect(await store.passkeys.recordUse('key-2', 1, at(6))).toBe(false);
  });

  it('two concurrent uses with one counter: exactly one records it', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    expect(await store.passkeys.insert(passkey(ada.id, 1, 3), G0)).toBe(true);
    for (let round = 0; round < 5; round++) {
      const next = 4 + round;
      const results = await Promise.all([store.passkeys.recordUse('key-1', next, at(round)), store.passkeys.recordUse('key-1', next, at(round))]);
      expect(results.filter(Boolean)).toHaveLength(1);
    }
    expect((await store.passkeys.findById('key-1'))!.counter).toBe(8);
  });

  it('a challenge is taken once, only before it expires, with what it was for', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await putChallenge(store, challenge(1, 'register', ada.id));
    await putChallenge(store, challenge(2, 'sign-in', null));
    await putChallenge(store, challenge(3, 'sign-in', null));
    expect(await takeChallenge(store, digest(5001), T0)).toEqual(challenge(1, 'register', ada.id));
    expect(await takeChallenge(store, digest(5001), T0)).toBeNull();
    expect(await takeChallenge(store, digest(5002), at(5 * MINUTE))).toBeNull();
    expect(await takeChallenge(store, digest(5002), at(5 * MINUTE - 1))).toEqual(challenge(2, 'sign-in', null));
    expect(await takeChallenge(store, digest(5009), T0)).toBeNull();
    // The sweep removes the one never answered.
    expect((await store.deleteExpired(at(5 * MINUTE))).oneTimeTokens).toEqual({ 'passkey-sign-in': 1 });
    expect(await takeChallenge(store, digest(5003), T0)).toBeNull();
  });

  it(`an account keeps its newest ${PASSKEY_CHALLENGES_PER_ACCOUNT} challenges, the oldest replaced; sign-in ones and other accounts’ are not touched`, async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const bob = await addUser(accounts, 'bob@example.com', 'Bob');
    const made = (n: number, userId: number | null, t: number): PasskeyChallenge => ({ ...challenge(n, n % 2 ? 'register' : 'step-up', userId), createdAt: at(t), expiresAt: at(t + 5 * MINUTE) });
    await putChallenge(store, made(900, bob.id, 0));
    for (let n = 1; n <= 20; n++) await putChallenge(store, made(500 + n, null, n));
    for (let n = 1; n <= PASSKEY_CHALLENGES_PER_ACCOUNT + 5; n++) await putChallenge(store, made(n, ada.id, n));
    const kept: number[] = [];
    for (let n = 1; n <= PASSKEY_CHALLENGES_PER_ACCOUNT + 5; n++) if (await takeChallenge(store, digest(5000 + n), T0)) kept.push(n);
    expect(kept).toEqual(Array.from({ length: PASSKEY_CHALLENGES_PER_ACCOUNT }, (_, i) => i + 6));
    for (let n = 1; n <= 20; n++) expect(await takeChallenge(store, digest(5500 + n), T0)).not.toBeNull();
    expect(await takeChallenge(store, digest(5900), T0)).not.toBeNull();
  });

  it(`of 40 concurrent challenges of one account, the newest ${PASSKEY_CHALLENGES_PER_ACCOUNT} remain`, async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const made = (n: number): PasskeyChallenge => ({ ...challenge(n, 'register', ada.id), createdAt: at(n), expiresAt: at(n + 5 * MINUTE) });
    await Promise.all(Array.from({ length: 40 }, (_, i) => putChallenge(store, made(i + 1))));
    const kept: number[] = [];
    for (let n = 1; n <= 40; n++) if (await takeChallenge(store, digest(5000 + n), T0)) kept.push(n);
    expect(kept).toEqual(Array.from({ length: PASSKEY_CHALLENGES_PER_ACCOUNT }, (_, i) => 40 - PASSKEY_CHALLENGES_PER_ACCOUNT + i + 1));
  });

  it('a challenge taken twice at once is given to exactly one', async () => {
    const { store } = current;
    for (let n = 1; n <= 5; n++) await putChallenge(store, challenge(n, 'sign-in', null));
    for (let n = 1; n <= 5; n++) {
      const taken = await Promise.all([takeChallenge(store, digest(5000 + n), T0), takeChallenge(store, digest(5000 + n), T0), takeChallenge(store, digest(5000 + n), T0)]);
      expect(taken.filter((c) => c !== null)).toHaveLength(1);
    }
  });

  it('a deletion of the account deletes its passkeys and challenges', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const bob = await addUser(accounts, 'bob@example.com', 'Bob');
    expect(await store.passkeys.insert(passkey(ada.id, 1), G0)).toBe(true);
    expect(await store.passkeys.insert(passkey(bob.id, 2), G0)).toBe(true);
    await putChallenge(store, challenge(1, 'register', ada.id));
    await putChallenge(store, challenge(2, 'register', bob.id));
    expect(await accounts.deleteAccount(ada.id, G0)).toEqual([]);
    expect(await store.passkeys.findById('key-1')).toBeNull();
    expect(await takeChallenge(store, digest(5001), T0)).toBeNull();
    expect(await store.passkeys.findById('key-2')).not.toBeNull();
    expect(await takeChallenge(store, digest(5002), T0)).not.toBeNull();
  });

  it('a token of an account that is gone is not stored (false), whatever its purpose or options, in a unit of work or not', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    expect(await accounts.deleteAccount(ada.id, G0)).toEqual([]);
    // A passkey challenge (bounded per account), a link's sign-in state, a reset token in its slot.
    expect(await putChallenge(store, challenge(1, 'register', ada.id))).toBe(false);
    expect(await store.oneTimeTokens.put(oneTime(5002, 'sign-in-state', ada.id, { expiresAt: at(5 * MINUTE) }))).toBe(false);
    expect(await store.oneTimeTokens.put(oneTime(5003, 'password-reset', ada.id, { email: 'ada@example.com', expiresAt: at(5 * MINUTE) }), { slot: 'reset:ada@example.com' })).toBe(false);
    expect(await store.transaction((tx) => tx.oneTimeTokens.put(oneTime(5004, 'sign-in-state', ada.id, { expiresAt: at(5 * MINUTE) })))).toBe(false);
    for (const n of [5001, 5002, 5003, 5004]) expect(await store.oneTimeTokens.take(['passkey-register', 'sign-in-state', 'password-reset'], digest(n), T0)).toBeNull();
    // A token bound to no account is stored as before.
    expect(await store.oneTimeTokens.put(oneTime(5005, 'sign-in-state', null, { expiresAt: at(5 * MINUTE) }))).toBe(true);
    expect(await store.oneTimeTokens.take('sign-in-state', digest(5005), T0)).not.toBeNull();
  });

  it('a sign-in racing a removal of its passkey leaves no session: the removal ends it, or the insert finds the generation moved', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    for (let round = 0; round < 4; round++) {
      const generation = (await store.users.findById(ada.id))!.credentialGeneration;
      expect(await accounts.addPasskey(passkey(ada.id, 10 + round), generation, null)).toEqual([]);
      // The sign-in read the account at generation + 1 and checked the signature; the removal runs at once.
      const session = { tokenDigest: digest(100 + round), userId: ada.id, credentialGeneration: generation + 1, createdAt: T0, expiresAt: at(DAY) };
      const [, removed] = await Promise.all([accounts.startSession(session, 50), accounts.removePasskey(ada.id, `key-${10 + round}`, generation + 1, null)]);
      expect(Array.isArray(removed)).toBe(true);
      expect(await store.sessions.findWithUser(digest(100 + round))).toBeNull();
    }
  });
}
