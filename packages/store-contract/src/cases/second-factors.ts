import { expect, it } from 'vitest';
import type { OneTimeToken } from '@sl-accounts/service/core';
import type { CurrentStore } from '../current-store.ts';
import { addSession, addUser, at, digest, G0, MINUTE, oneTime, OTHER_PHC, T0 } from '../fixtures.ts';

const SEALED = 'v1.aXY.c2VhbGVk';
const OTHER_SEALED = 'v1.aXY.b3RoZXI';
const challenge = (n: number, userId: number, credentialGeneration = G0, expiresAt = at(5 * MINUTE)): OneTimeToken => oneTime(3000 + n, 'login', userId, { credentialGeneration, expiresAt });
const codes = (from: number, n = 10) => Array.from({ length: n }, (_, i) => digest(4000 + from + i));

/** Second factors (docs/decisions/0043, 0044): TOTP factors, recovery codes, login challenges, step-ups, and their races. */
export function secondFactorCases(current: CurrentStore): void {
  /** Puts a login challenge as the core does: under its generation. */
  const putChallenge = (c: OneTimeToken) => current.store.oneTimeTokens.put(c, { underGeneration: true });
  /** Takes a login challenge as the core does. */
  const takeChallenge = (n: number, now: Date) => current.store.oneTimeTokens.take('login', digest(3000 + n), now);

  it('a pending TOTP factor is stored, replaced while pending, turned on once by its own secret, and kept when on', async () => {
    const { store } = current;
    const ada = await addUser(current.accounts);
    expect(await store.totp.find(ada.id)).toBeNull();
    expect(await store.totp.putPending(ada.id + 1000, SEALED, T0)).toBe(false);
    expect(await store.totp.putPending(ada.id, OTHER_SEALED, T0)).toBe(true);
    expect(await store.totp.putPending(ada.id, SEALED, at(MINUTE))).toBe(true);
    expect(await store.totp.find(ada.id)).toEqual({ userId: ada.id, sealedSecret: SEALED, enabled: false, lastUsedStep: null, createdAt: at(MINUTE) });
    // The replaced secret turns nothing on; the pending one does, once.
    expect(await store.totp.enable(ada.id, OTHER_SEALED, 100)).toBe(false);
    expect(await store.totp.enable(ada.id, SEALED, 100)).toBe(true);
    expect(await store.totp.enable(ada.id, SEALED, 101)).toBe(false);
    expect(await store.totp.find(ada.id)).toMatchObject({ enabled: true, lastUsedStep: 100 });
    expect(await store.totp.countEnabled()).toBe(1);
    // On: a new enrolment cannot replace it.
    expect(await store.totp.putPending(ada.id, OTHER_SEALED, T0)).toBe(false);
    expect((await store.totp.find(ada.id))?.sealedSecret).toBe(SEALED);
    expect(await store.totp.delete(ada.id)).toBe(true);
    expect(await store.totp.delete(ada.id)).toBe(false);
    expect(await store.totp.countEnabled()).toBe(0);
  });

  it('the newest factor, pending or on, is the one stored last (what the start opens to check SECRETS_KEY)', async () => {
    const { store } = current;
    expect(await store.totp.newest()).toBeNull();
    const [ada, bob] = [await addUser(current.accounts), await addUser(current.accounts, 'bob@example.com')];
    const later = at(2 * MINUTE);
    await store.totp.putPending(bob.id, OTHER_SEALED, at(3 * MINUTE));
    await store.totp.putPending(ada.id, SEALED, later);
    expect(await store.totp.newest()).toMatchObject({ userId: bob.id, sealedSecret: OTHER_SEALED, enabled: false });
    await store.totp.delete(bob.id);
    await store.totp.enable(ada.id, SEALED, 100);
    expect(await store.totp.newest()).toEqual({ userId: ada.id, sealedSecret: SEALED, enabled: true, lastUsedStep: 100, createdAt: later });
    await store.totp.delete(ada.id);
  });

  it('a time step is used once, and no step before the last used one (a replayed code fails)', async () => {
    const { store } = current;
    const ada = await addUser(current.accounts);
    await store.totp.putPending(ada.id, SEALED, T0);
    expect(await store.totp.useStep(ada.id, 5)).toBe(false); // not on yet
    await store.totp.enable(ada.id, SEALED, 100);
    expect(await store.totp.useStep(ada.id, 100)).toBe(false);
    expect(await store.totp.useStep(ada.id, 99)).toBe(false);
    expect(await store.totp.useStep(ada.id, 101)).toBe(true);
    expect(await store.totp.useStep(ada.id, 101)).toBe(false);
    // Steps are counters since 1970: today's (about 5.9e7) and far later ones round-trip.
    expect(await store.totp.useStep(ada.id, 2 ** 40)).toBe(true);
    expect((await store.totp.find(ada.id))?.lastUsedStep).toBe(2 ** 40);
  });

  it('one code raced from many requests passes once', async () => {
    const { store } = current;
    const ada = await addUser(current.accounts);
    await store.totp.putPending(ada.id, SEALED, T0);
    await store.totp.enable(ada.id, SEALED, 100);
    const results = await Promise.all(Array.from({ length: 8 }, () => store.totp.useStep(ada.id, 101)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('recovery codes: replaced as a set, each used once, the count of those left answered', async () => {
    const { store } = current;
    const ada = await addUser(current.accounts);
    const grace = await addUser(current.accounts, 'grace@example.com', 'Grace');
    await store.recoveryCodes.replace(ada.id, codes(0));
    await store.recoveryCodes.replace(grace.id, codes(100));
    expect(await store.recoveryCodes.count(ada.id)).toBe(10);
    expect(await store.recoveryCodes.use(ada.id, digest(4003))).toBe(9);
    expect(await store.recoveryCodes.use(ada.id, digest(4003))).toBeNull();
    // Another account's code is no code of this one.
    expect(await store.recoveryCodes.use(ada.id, digest(4100))).toBeNull();
    expect(await store.recoveryCodes.count(grace.id)).toBe(10);
    // Renewal: the old ones die.
    await store.recoveryCodes.replace(ada.id, codes(50));
    expect(await store.recoveryCodes.use(ada.id, digest(4004))).toBeNull();
    expect(await store.recoveryCodes.use(ada.id, digest(4050))).toBe(9);
    await store.recoveryCodes.replace(ada.id, []);
    expect(await store.recoveryCodes.count(ada.id)).toBe(0);
  });

  it('one recovery code raced from many requests is used once', async () => {
    const { store } = current;
    const ada = await addUser(current.accounts);
    await store.recoveryCodes.replace(ada.id, codes(0));
    const results = await Promise.all(Array.from({ length: 8 }, () => store.recoveryCodes.use(ada.id, digest(4001))));
    expect(results.filter((r) => r !== null)).toEqual([9]);
    expect(await store.recoveryCodes.count(ada.id)).toBe(9);
  });

  it('a login challenge is stored only under the current generation, taken once, and not after its expiry', async () => {
    const { accounts } = current;
    const ada = await addUser(accounts);
    expect(await putChallenge(challenge(1, ada.id, G0 + 1))).toBe(false);
    expect(await putChallenge(challenge(1, ada.id + 1000))).toBe(false);
    expect(await putChallenge(challenge(1, ada.id))).toBe(true);
    expect(await takeChallenge(1, at(5 * MINUTE))).toBeNull(); // at its expiry
    expect(await takeChallenge(1, at(MINUTE))).toEqual(challenge(1, ada.id));
    expect(await takeChallenge(1, at(MINUTE))).toBeNull();
    // Put back with a failure counted (a wrong code), it is taken with it.
    expect(await putChallenge({ ...challenge(1, ada.id), failures: 1 })).toBe(true);
    expect((await takeChallenge(1, at(MINUTE)))?.failures).toBe(1);
    // A change of credential voids a challenge not yet written.
    expect(await accounts.changePassword(ada.id, G0, OTHER_PHC, null)).toEqual([]);
    expect(await putChallenge(challenge(2, ada.id))).toBe(false);
  });

  it('one challenge raced from many second steps is taken once', async () => {
    const ada = await addUser(current.accounts);
    await putChallenge(challenge(1, ada.id));
    const taken = await Promise.all(Array.from({ length: 8 }, () => takeChallenge(1, at(MINUTE))));
    expect(taken.filter((c) => c !== null)).toHaveLength(1);
  });

  it('taking an email link leaves the owner\'s second factor, recovery codes and login challenges as they were', async () => {
    const { store } = current;
    const ada = await addUser(current.accounts);
    await store.totp.putPending(ada.id, SEALED, T0);
    await store.totp.enable(ada.id, SEALED, 100);
    await store.recoveryCodes.replace(ada.id, codes(0));
    await putChallenge(challenge(1, ada.id));
    const link = oneTime(2001, 'verify-email', ada.id, { email: 'ada@example.com', expiresAt: at(5 * MINUTE) });
    expect(await store.oneTimeTokens.put(link, { underGeneration: true, slot: `email:${ada.id}` })).toBe(true);
    expect(await store.oneTimeTokens.take(['verify-email', 'change-email'], digest(2001), at(MINUTE))).toEqual(link);
    expect(await store.totp.find(ada.id)).toMatchObject({ enabled: true, sealedSecret: SEALED });
    expect(await store.recoveryCodes.count(ada.id)).toBe(10);
    expect(await takeChallenge(1, at(MINUTE))).toEqual(challenge(1, ada.id));
  });

  it('the sweep deletes expired challenges; a deleted account takes its factor, codes and challenges along', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await putChallenge(challenge(1, ada.id, G0, at(MINUTE)));
    await putChallenge(challenge(2, ada.id, G0, at(10 * MINUTE)));
    expect((await store.deleteExpired(at(MINUTE))).oneTimeTokens).toEqual({ login: 1 });
    await store.totp.putPending(ada.id, SEALED, T0);
    await store.totp.enable(ada.id, SEALED, 1);
    await store.recoveryCodes.replace(ada.id, codes(0));
    expect(await accounts.deleteAccount(ada.id, G0)).toEqual([]);
    expect(await store.totp.find(ada.id)).toBeNull();
    expect(await store.recoveryCodes.count(ada.id)).toBe(0);
    expect(await takeChallenge(2, T0)).toBeNull();
  });

  it('a step-up is recorded for a live session only, the newest kept, and ends with the session', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    expect(await store.sessions.recordStepUp(digest(1), 'totp', T0)).toBe(false);
    await addSession(accounts, ada.id, 1, at(60 * MINUTE));
    expect(await store.sessions.findStepUp(digest(1))).toBeNull();
    expect(await store.sessions.recordStepUp(digest(1), 'totp', T0)).toBe(true);
    expect(await store.sessions.recordStepUp(digest(1), 'passkey', at(MINUTE))).toBe(true);
    expect(await store.sessions.findStepUp(digest(1))).toEqual({ kind: 'passkey', verifiedAt: at(MINUTE) });
    await store.sessions.delete(digest(1));
    expect(await store.sessions.findStepUp(digest(1))).toBeNull();
  });

  it('enableTotp and disableTotp move the generation, end the other sessions, write the codes and queue the notice, in one unit of work', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(60 * MINUTE));
    await addSession(accounts, ada.id, 2, at(60 * MINUTE));
    await store.totp.putPending(ada.id, SEALED, T0);
    const notice = { kind: 'security' as const, subject: 'on', text: 'on', queuedAt: T0 };
    // A stale generation, or a secret that is no longer the pending one: nothing changes.
    expect(await accounts.enableTotp(ada.id, G0 + 1, SEALED, 7, codes(0), digest(1), notice)).toBeNull();
    expect(await accounts.enableTotp(ada.id, G0, OTHER_SEALED, 7, codes(0), digest(1), notice)).toBeNull();
    expect((await store.users.findById(ada.id))?.credentialGeneration).toBe(G0);
    expect(await store.recoveryCodes.count(ada.id)).toBe(0);
    expect(await store.outbox.depth()).toBe(0);
    expect(await accounts.enableTotp(ada.id, G0, SEALED, 7, codes(0), digest(1), notice)).toEqual([digest(2)]);
    expect(await store.totp.find(ada.id)).toMatchObject({ enabled: true, lastUsedStep: 7 });
    expect(await store.recoveryCodes.count(ada.id)).toBe(10);
    expect((await store.users.findById(ada.id))?.credentialGeneration).toBe(G0 + 1);
    expect(await store.outbox.depth()).toBe(1);
    expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
    expect(await accounts.disableTotp(ada.id, G0, digest(1), null)).toBeNull();
    expect(await accounts.disableTotp(ada.id, G0 + 1, digest(1), notice)).toEqual([]);
    expect(await store.totp.find(ada.id)).toBeNull();
    expect(await store.recoveryCodes.count(ada.id)).toBe(0);
    expect((await store.users.findById(ada.id))?.credentialGeneration).toBe(G0 + 2);
  });

  it('useRecoveryCode queues its notice with the count left, once of concurrent uses', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await store.recoveryCodes.replace(ada.id, codes(0));
    const notice = (left: number) => ({ kind: 'security' as const, subject: `left ${left}`, text: 'used', queuedAt: T0 });
    const results = await Promise.all([1, 2, 3].map(() => accounts.useRecoveryCode(ada.id, digest(4000), notice)));
    expect(results.filter((r) => r !== null)).toEqual([9]);
    const claimed = await store.outbox.claim(at(MINUTE), { limit: 10, leaseMs: MINUTE });
    expect(claimed.map((m) => [m.to, m.subject])).toEqual([['ada@example.com', 'left 9']]);
    expect(await accounts.useRecoveryCode(ada.id, digest(4999), notice)).toBeNull();
  });
}
