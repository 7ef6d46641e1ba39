import { expect, it } from 'vitest';
import { NO_PASSWORD, type Identity } from '@sl-accounts/service/core';
import type { CurrentStore } from '../current-store.ts';
import { addUser, at, digest, G0, MINUTE, T0 } from '../fixtures.ts';

const ISSUER = 'https://issuer.example';

/** An identity of `userId` at provider `test` (subject `sub-<n>`), linked `n` minutes after T0. */
const identity = (userId: number, n: number, provider = 'test'): Identity => ({ provider, issuer: ISSUER, subject: `sub-${n}`, userId, email: `person${n}@example.com`, linkedAt: at(n * MINUTE) });

/** A new account made through a provider, as the core makes it (no password). */
const newUser = (email: string, emailVerified = true) => ({ name: 'Made Here', email, passwordHash: NO_PASSWORD, createdAt: T0, emailVerified });

/** Identities at providers (issue 42): what the sign-in and the linking rules rely on. */
export function identityCases(current: CurrentStore): void {
  it('an identity round-trips, is found by issuer and subject, lists oldest first, and is deleted only as its owner’s', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const bob = await addUser(accounts, 'bob@example.com', 'Bob');
    expect(await store.identities.insert(identity(ada.id, 2, 'beta'), G0)).toBe(true);
    expect(await store.identities.insert(identity(ada.id, 1, 'alpha'), G0)).toBe(true);
    expect(await store.identities.find(ISSUER, 'sub-2')).toEqual(identity(ada.id, 2, 'beta'));
    expect(await store.identities.find(ISSUER, 'sub-3')).toBeNull();
    expect(await store.identities.find('https://other.example', 'sub-2')).toBeNull();
    expect((await store.identities.listByUser(ada.id)).map((i) => i.provider)).toEqual(['alpha', 'beta']);
    expect(await store.identities.delete(bob.id, 'alpha')).toBe(false);
    expect(await store.identities.delete(ada.id, 'alpha')).toBe(true);
    expect(await store.identities.delete(ada.id, 'alpha')).toBe(false);
    expect((await store.identities.listByUser(ada.id)).map((i) => i.provider)).toEqual(['beta']);
  });

  it('an identity belongs to at most one account, an account to one identity per provider, and only at its generation', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const bob = await addUser(accounts, 'bob@example.com', 'Bob');
    expect(await store.identities.insert(identity(ada.id, 1), G0)).toBe(true);
    // The same issuer and subject for Bob: refused, Ada's stays.
    expect(await store.identities.insert({ ...identity(ada.id, 1), userId: bob.id }, G0)).toBe(false);
    expect((await store.identities.find(ISSUER, 'sub-1'))!.userId).toBe(ada.id);
    // A second identity of the same provider for Ada: refused.
    expect(await store.identities.insert(identity(ada.id, 2), G0)).toBe(false);
    // A stale generation, or no such user: nothing stored.
    expect(await store.identities.insert(identity(bob.id, 3), G0 + 1)).toBe(false);
    expect(await store.identities.insert(identity(9999, 4), G0)).toBe(false);
    expect(await store.identities.find(ISSUER, 'sub-3')).toBeNull();
  });

  it('an account’s deletion deletes its identities', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    expect(await store.identities.insert(identity(ada.id, 1), G0)).toBe(true);
    expect(await store.users.delete(ada.id)).toBe(true);
    expect(await store.identities.find(ISSUER, 'sub-1')).toBeNull();
  });

  it('two concurrent first sign-ins of one identity make one account', async () => {
    const { store, accounts } = current;
    const one = { provider: 'test', issuer: ISSUER, subject: 'sub-1', email: 'first@example.com', linkedAt: T0 };
    const made = await Promise.all([accounts.signUpWithIdentity(newUser('first@example.com'), one), accounts.signUpWithIdentity(newUser('first@example.com'), one)]);
    const users = made.filter((m) => typeof m === 'object');
    expect(users).toHaveLength(1);
    expect(made.filter((m) => typeof m === 'string')).toHaveLength(1);
    // Even under two addresses, one identity makes one account: the other is rolled back whole.
    const two = { ...one, subject: 'sub-2' };
    const [a, b] = await Promise.all([accounts.signUpWithIdentity(newUser('a@example.com'), two), accounts.signUpWithIdentity(newUser('b@example.com'), two)]);
    expect([a, b].filter((m) => typeof m === 'object')).toHaveLength(1);
    expect([a, b].filter((m) => m === 'identity')).toHaveLength(1);
    const loser = a === 'identity' ? 'a@example.com' : 'b@example.com';
    expect(await store.users.findByEmail(loser)).toBeNull();
    const user = users[0] as { id: number; emailVerified: boolean };
    expect(user.emailVerified).toBe(true);
    expect((await store.users.findById(user.id))!.passwordHash).toBe(NO_PASSWORD);
  });

  it('a link racing another link of the same identity: exactly one wins', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const bob = await addUser(accounts, 'bob@example.com', 'Bob');
    const results = await Promise.all([accounts.linkIdentity(identity(ada.id, 1), G0, null), accounts.linkIdentity({ ...identity(ada.id, 1), userId: bob.id }, G0, null)]);
    expect(results.filter((r) => Array.isArray(r))).toHaveLength(1);
    expect(results.filter((r) => r === 'taken')).toHaveLength(1);
    const holder = (await store.identities.find(ISSUER, 'sub-1'))!.userId;
    // The loser's generation did not move: its unit of work was rolled back whole.
    const loser = holder === ada.id ? bob.id : ada.id;
    expect((await store.users.findById(loser))!.credentialGeneration).toBe(G0);
    expect((await store.users.findById(holder))!.credentialGeneration).toBe(G0 + 1);
  });

  it('unlinking the last way in is refused; with a password (or another identity) left it goes through', async () => {
    const { store, accounts } = current;
    const made = await accounts.signUpWithIdentity(newUser('solo@example.com'), { provider: 'test', issuer: ISSUER, subject: 'solo', email: 'solo@example.com', linkedAt: T0 });
    const solo = made as { id: number };
    expect(await accounts.unlinkIdentity(solo.id, 'test', G0, null)).toBe('last');
    expect(await store.identities.find(ISSUER, 'solo')).not.toBeNull();
    expect((await store.users.findById(solo.id))!.credentialGeneration).toBe(G0);
    expect(await accounts.linkIdentity({ ...identity(solo.id, 7, 'other') }, G0, null)).toEqual([]);
    expect(await accounts.unlinkIdentity(solo.id, 'test', G0 + 1, null)).toEqual([]);
    expect(await accounts.unlinkIdentity(solo.id, 'test', G0 + 2, null)).toBe('missing');
    const ada = await addUser(accounts);
    expect(await store.identities.insert(identity(ada.id, 1), G0)).toBe(true);
    expect(await accounts.unlinkIdentity(ada.id, 'test', G0, null)).toEqual([]);
  });

  it('a completed reset of an account whose address was unverified unlinks its identities; of a verified one, keeps them', async () => {
    const { store, accounts } = current;
    const reset = (n: number) => ({ tokenDigest: digest(7000 + n), createdAt: T0, expiresAt: at(30 * MINUTE) });
    const mail = (to: string) => ({ to, subject: 'Reset', text: 'https://example.com/reset?token=x' });
    const unverified = (await accounts.signUpWithIdentity(newUser('open@example.com', false), { provider: 'test', issuer: ISSUER, subject: 'open', email: 'open@example.com', linkedAt: T0 })) as { id: number };
    const verified = (await accounts.signUpWithIdentity(newUser('sure@example.com', true), { provider: 'test', issuer: ISSUER, subject: 'sure', email: 'sure@example.com', linkedAt: T0 })) as { id: number };
    expect(await accounts.requestReset('open@example.com', reset(1), mail('open@example.com'))).toBe(true);
    expect(await accounts.requestReset('sure@example.com', reset(2), mail('sure@example.com'))).toBe(true);
    expect((await accounts.completeReset(digest(7001), T0, NO_PASSWORD))?.userId).toBe(unverified.id);
    expect((await accounts.completeReset(digest(7002), T0, NO_PASSWORD))?.userId).toBe(verified.id);
    expect(await store.identities.listByUser(unverified.id)).toEqual([]);
    expect((await store.identities.listByUser(verified.id)).map((i) => i.subject)).toEqual(['sure']);
    expect((await store.users.findById(unverified.id))!.emailVerified).toBe(true);
  });
}
