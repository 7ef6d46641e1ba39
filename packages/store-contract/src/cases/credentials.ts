import { expect, it } from 'vitest';
import type { AccountManager, Store } from '@sl-accounts/service/core';
import type { CurrentStore } from '../current-store.ts';
import { addSession, addUser, at, DAY, digest, G0, MINUTE, OTHER_PHC, PHC, T0 } from '../fixtures.ts';

const MAIL = { to: 'ada@example.com', subject: 'Reset', text: 'https://example.com/reset?token=x' };
const RESET = { tokenDigest: digest(1001), createdAt: T0, expiresAt: at(30 * MINUTE) };
const G1 = G0 + 1;

/** A session of `userId` under `generation`, created with or without the per-user cap. */
const create = (accounts: AccountManager, userId: number, n: number, generation: number, maxPerUser?: number) =>
  accounts.startSession({ tokenDigest: digest(n), userId, credentialGeneration: generation, createdAt: at(n), expiresAt: at(DAY) }, maxPerUser);

const generationOf = async (store: Store, userId: number) => (await store.users.findById(userId))?.credentialGeneration;

/** The credential generation (a security stamp): what moves it, and what it guards. */
export function credentialCases(current: CurrentStore): void {
  it('a new account is at the first generation; a password change moves it on, a rehash does not and ends nothing', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(DAY));
    expect(await generationOf(store, ada.id)).toBe(G0);
    expect(await accounts.replaceHash(ada.id, G0, OTHER_PHC)).toBe(true);
    expect(await generationOf(store, ada.id)).toBe(G0);
    expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
    expect(await accounts.changePassword(ada.id, G0, PHC, null)).toEqual([digest(1)]);
    expect(await store.users.findByEmail(ada.email)).toEqual({ ...ada, passwordHash: PHC, credentialGeneration: G1 });
  });

  it('a session is created only under the user’s current generation, and for no user that does not exist', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    expect(await create(accounts, ada.id, 1, G0)).toBe(true);
    expect(await accounts.changePassword(ada.id, G0, OTHER_PHC, digest(1))).toEqual([]);
    for (const maxPerUser of [undefined, 50]) {
      expect(await create(accounts, ada.id, 2, G0, maxPerUser)).toBe(false);
      expect(await store.sessions.findWithUser(digest(2))).toBeNull();
      // Nor for a user id no account has (never a foreign-key error).
      expect(await create(accounts, ada.id + 1000, 3, G0, maxPerUser)).toBe(false);
      expect(await store.sessions.findWithUser(digest(3))).toBeNull();
    }
    expect(await create(accounts, ada.id, 4, G1, 50)).toBe(true);
    expect((await store.sessions.listByUser(ada.id, T0)).map((s) => s.tokenDigest).sort()).toEqual([digest(1), digest(4)]);
  });

  it('under a stale generation, a password change, a rehash and a deletion change nothing', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(DAY));
    expect(await accounts.changePassword(ada.id, G0, OTHER_PHC, digest(1))).toEqual([]);
    expect(await accounts.changePassword(ada.id, G0, PHC, null)).toBeNull();
    expect(await accounts.replaceHash(ada.id, G0, PHC)).toBe(false);
    expect(await accounts.deleteAccount(ada.id, G0)).toBeNull();
    expect(await store.users.findById(ada.id)).toEqual({ ...ada, passwordHash: OTHER_PHC, credentialGeneration: G1 });
    expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
    expect(await accounts.deleteAccount(ada.id, G1)).toEqual([digest(1)]);
  });

  it('a password change voids the account’s reset token; a reset moves the generation on and names the account', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    expect(await accounts.requestReset(ada.email, RESET, MAIL)).toBe(true);
    expect(await accounts.requestReset(grace.email, { ...RESET, tokenDigest: digest(1002) }, { ...MAIL, to: grace.email })).toBe(true);
    expect(await accounts.changePassword(ada.id, G0, OTHER_PHC, null)).toEqual([]);
    expect(await accounts.completeReset(digest(1001), T0, PHC)).toBeNull();
    expect(await store.users.findById(ada.id)).toMatchObject({ passwordHash: OTHER_PHC, credentialGeneration: G1 });
    // Another account's token is untouched, and its use moves that account on.
    await addSession(accounts, grace.id, 1, at(DAY));
    expect(await accounts.completeReset(digest(1002), T0, OTHER_PHC)).toEqual({ userId: grace.id, email: grace.email, endedSessions: [digest(1)] });
    expect(await generationOf(store, grace.id)).toBe(G1);
    expect(await create(accounts, grace.id, 2, G0, 50)).toBe(false);
    // A token requested now is bound to the new generation and works once.
    expect(await accounts.requestReset(ada.email, { ...RESET, tokenDigest: digest(1003) }, MAIL)).toBe(true);
    expect(await accounts.completeReset(digest(1003), T0, PHC)).toMatchObject({ userId: ada.id, email: ada.email });
    expect(await generationOf(store, ada.id)).toBe(G1 + 1);
  });

  // The concurrency case of the stamp: creates that read the generation before a change of
  // credential and reach the store around its commit. Every session that was stored must have been
  // ended by the change (and reported by it, so session caches forget it); none may outlive it.
  for (const change of ['password change', 'reset', 'deletion'] as const) {
    it(`20 creates under the old generation racing a ${change}: none outlives it, every stored one is reported ended, none fails`, async () => {
      const { store, accounts } = current;
      const ada = await addUser(accounts);
      if (change === 'reset') expect(await accounts.requestReset(ada.email, RESET, MAIL)).toBe(true);
      const creates: Promise<boolean>[] = [];
      // Both ways of creating (one statement, and the capped transaction), before and after the
      // change is sent; on a pool, they overlap its transaction.
      for (let n = 1; n <= 10; n++) creates.push(create(accounts, ada.id, n, G0, n % 2 === 0 ? 50 : undefined));
      const changed =
        change === 'password change'
          ? accounts.changePassword(ada.id, G0, OTHER_PHC, null)
          : change === 'reset'
            ? accounts.completeReset(digest(1001), T0, OTHER_PHC).then((done) => done?.endedSessions ?? null)
            : accounts.deleteAccount(ada.id, G0);
      for (let n = 11; n <= 20; n++) creates.push(create(accounts, ada.id, n, G0, n % 2 === 0 ? 50 : undefined));
      const [ended, ...stored] = await Promise.all([changed, ...creates]);
      expect(ended).not.toBeNull();
      const storedDigests = stored.flatMap((created, i) => (created ? [digest(i + 1)] : []));
      expect(stored.every((created) => typeof created === 'boolean')).toBe(true);
      expect([...ended!].sort()).toEqual(storedDigests.sort());
      expect(await store.sessions.listByUser(ada.id, T0)).toEqual([]);
      for (let n = 1; n <= 20; n++) expect(await store.sessions.findWithUser(digest(n))).toBeNull();
    });
  }
}
