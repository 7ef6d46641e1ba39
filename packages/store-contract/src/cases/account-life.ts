import { expect, it } from 'vitest';
import { createAccountManager } from '@sl-accounts/service/core';
import type { CurrentStore } from '../current-store.ts';
import { recorded } from '../recorded.ts';
import { addSession, addUser, at, DAY, digest, G0, MINUTE, OTHER_PHC, PHC, T0 } from '../fixtures.ts';

const MAIL = { to: 'ada@example.com', subject: 'Reset', text: 'https://example.com/reset?token=x' };
const reset = (n: number, expiresAt = at(30 * MINUTE)) => ({ tokenDigest: digest(1000 + n), createdAt: T0, expiresAt });

/** Listing and ending sessions by id. */
export function sessionListCases(current: CurrentStore): void {
  it('listByUser lists that user’s unexpired sessions, oldest first, each with its own opaque id', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    await accounts.startSession({ tokenDigest: digest(1), userId: ada.id, credentialGeneration: G0, createdAt: at(-2 * MINUTE), expiresAt: at(DAY) });
    await accounts.startSession({ tokenDigest: digest(2), userId: ada.id, credentialGeneration: G0, createdAt: at(-MINUTE), expiresAt: at(2 * DAY) });
    await accounts.startSession({ tokenDigest: digest(3), userId: ada.id, credentialGeneration: G0, createdAt: at(-3 * DAY), expiresAt: T0 }); // expired at now
    await addSession(accounts, grace.id, 4, at(DAY));
    const listed = await store.sessions.listByUser(ada.id, T0);
    expect(listed.map((s) => ({ tokenDigest: s.tokenDigest, createdAt: s.createdAt, expiresAt: s.expiresAt }))).toEqual([
      { tokenDigest: digest(1), createdAt: at(-2 * MINUTE), expiresAt: at(DAY) },
      { tokenDigest: digest(2), createdAt: at(-MINUTE), expiresAt: at(2 * DAY) },
    ]);
    const ids = listed.map((s) => s.id);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) {
      expect(id).toMatch(/^[\w-]{16,}$/);
      expect(id).not.toContain(digest(1).slice(-8));
      expect(id).not.toContain(digest(2).slice(-8));
    }
    expect(await store.sessions.listByUser(grace.id + ada.id + 1000, T0)).toEqual([]);
  });

  it('deleteById ends that session of that user only, once; another user’s id or an unknown one is null', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    await addSession(accounts, ada.id, 1, at(DAY));
    await addSession(accounts, ada.id, 2, at(DAY));
    await addSession(accounts, grace.id, 3, at(DAY));
    const first = (await store.sessions.listByUser(ada.id, T0)).find((s) => s.tokenDigest === digest(1));
    const [graces] = await store.sessions.listByUser(grace.id, T0);
    expect(await accounts.endSession(ada.id, graces!.id)).toBeNull();
    expect(await store.sessions.findWithUser(digest(3))).not.toBeNull();
    expect(await accounts.endSession(ada.id, 'no-such-session')).toBeNull();
    expect(await accounts.endSession(ada.id, first!.id)).toBe(digest(1));
    expect(await accounts.endSession(ada.id, first!.id)).toBeNull();
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
    expect(await store.sessions.findWithUser(digest(2))).not.toBeNull();
  });

  it('deleteById with an id no text can hold (U+0000, an unpaired surrogate) or far too long is null, never a failure', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await addSession(accounts, ada.id, 1, at(DAY));
    const [listed] = await store.sessions.listByUser(ada.id, T0);
    for (const id of ['\0', `${listed!.id}\0`, `\0${listed!.id}`, '\ud800', `${listed!.id}\udc00`, 'x'.repeat(10_000)]) {
      expect(await accounts.endSession(ada.id, id), JSON.stringify(id.slice(0, 40))).toBeNull();
    }
    expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
  });
}

/** A password change, and the deletion of an account. */
export function accountChangeCases(current: CurrentStore): void {
  it('changePassword sets the hash and ends every session of the user but the kept one', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    for (const n of [1, 2, 3]) await addSession(accounts, ada.id, n, at(DAY));
    await addSession(accounts, grace.id, 4, at(DAY));
    const ended = await accounts.changePassword(ada.id, G0, OTHER_PHC, digest(2));
    expect([...(ended ?? [])].sort()).toEqual([digest(1), digest(3)]);
    expect((await store.users.findByEmail('ada@example.com'))?.passwordHash).toBe(OTHER_PHC);
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
    expect(await store.sessions.findWithUser(digest(3))).toBeNull();
    expect(await store.sessions.findWithUser(digest(2))).toEqual({ user: ada, expiresAt: at(DAY) });
    expect(await store.sessions.findWithUser(digest(4))).toEqual({ user: grace, expiresAt: at(DAY) });
    expect((await store.users.findByEmail('grace@example.com'))?.passwordHash).toBe(PHC);
  });

  it('changePassword without a kept session ends them all; for an unknown user it is null and changes nothing', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await addSession(accounts, ada.id, 1, at(DAY));
    expect(await accounts.changePassword(ada.id + 1000, G0, OTHER_PHC, null)).toBeNull();
    expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
    expect(await accounts.changePassword(ada.id, G0, OTHER_PHC, null)).toEqual([digest(1)]);
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
  });

  it('findById returns the user with its hash, or null', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    expect(await store.users.findById(ada.id)).toEqual({ ...ada, passwordHash: PHC, credentialGeneration: G0 });
    expect(await store.users.findById(ada.id + 1000)).toBeNull();
  });

  it('delete removes the user, their sessions and reset token; the address may sign up again; others stay', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    await addSession(accounts, ada.id, 1, at(DAY));
    await addSession(accounts, ada.id, 2, at(DAY));
    await addSession(accounts, grace.id, 3, at(DAY));
    expect(await accounts.requestReset('ada@example.com', reset(1), MAIL)).toBe(true);
    const ended = await accounts.deleteAccount(ada.id, G0);
    expect([...(ended ?? [])].sort()).toEqual([digest(1), digest(2)]);
    expect(await store.users.findByEmail('ada@example.com')).toBeNull();
    expect(await store.users.findById(ada.id)).toBeNull();
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
    expect(await store.sessions.findWithUser(digest(3))).toEqual({ user: grace, expiresAt: at(DAY) });
    expect(await accounts.deleteAccount(ada.id, G0)).toBeNull();
    const again = await addUser(accounts, 'ada@example.com', 'Ada again');
    expect(again.id).not.toBe(ada.id);
    // The old token went with the old account: it opens nothing, not even the new one.
    expect(await accounts.completeReset(digest(1001), T0, OTHER_PHC)).toBeNull();
    expect((await store.users.findByEmail('ada@example.com'))?.passwordHash).toBe(PHC);
  });
}

/** Password reset tokens. */
export function resetCases(current: CurrentStore): void {
  it('request for an unknown address is false and mails nobody; its token opens nothing, not even an account made at the address later', async () => {
    const { store, accounts } = current;
    await addUser(accounts, 'ada@example.com');
    const nobody = { ...MAIL, to: 'nobody@example.com' };
    expect(await accounts.requestReset('nobody@example.com', reset(1), nobody)).toBe(false);
    expect(await store.outbox.depth()).toBe(0);
    expect(await store.outbox.claim(T0, { limit: 10, leaseMs: MINUTE })).toEqual([]);
    expect(await accounts.completeReset(digest(1001), T0, OTHER_PHC)).toBeNull();
    await addUser(accounts, 'nobody@example.com', 'Nobody');
    expect(await accounts.completeReset(digest(1001), T0, OTHER_PHC)).toBeNull();
    expect((await store.users.findByEmail('nobody@example.com'))?.passwordHash).toBe(PHC);
    // Registered now: a new request is the account's, and its token works.
    expect(await accounts.requestReset('nobody@example.com', reset(2), nobody)).toBe(true);
    expect((await store.outbox.claim(T0, { limit: 10, leaseMs: MINUTE })).map((m) => m.to)).toEqual(['nobody@example.com']);
    expect(await accounts.completeReset(digest(1002), T0, OTHER_PHC)).not.toBeNull();
  });

  it('request writes the same entries whether or not the address is an account’s, so neither costs what the other does not', async () => {
    const { store, accounts } = current;
    await addUser(accounts, 'ada@example.com');
    // The store is asked for the same steps either way; only the values differ (no account, no recipient).
    const known = await recorded(store, (s) => createAccountManager(s).requestReset('ada@example.com', reset(1), MAIL));
    const unknown = await recorded(store, (s) => createAccountManager(s).requestReset('nobody@example.com', reset(2), { ...MAIL, to: 'nobody@example.com' }));
    expect([known.result, unknown.result]).toEqual([true, false]);
    expect(known.calls).toEqual(['users.findByEmail', 'oneTimeTokens.put', 'outbox.add']);
    expect(unknown.calls).toEqual(known.calls);
    // Both were written. The claim takes the mail and never the stand-in; the sweep removes both
    // tokens and the stand-in, and leaves the mail until it is sent.
    expect((await store.outbox.claim(T0, { limit: 10, leaseMs: MINUTE })).map((m) => m.to)).toEqual(['ada@example.com']);
    expect(await store.outbox.depth()).toBe(1);
    expect(await store.deleteExpired(at(30 * MINUTE))).toEqual({ sessions: 0, standIns: 1, oneTimeTokens: { 'password-reset': 2 } });
    expect(await store.deleteExpired(at(30 * MINUTE))).toEqual({ sessions: 0, standIns: 0, oneTimeTokens: {} });
    expect(await store.outbox.depth()).toBe(1);
  });

  it('request for a registered address queues its mail with the token', async () => {
    const { store, accounts } = current;
    await addUser(accounts, 'ada@example.com');
    expect(await accounts.requestReset('ada@example.com', reset(1), MAIL)).toBe(true);
    expect(await store.outbox.depth()).toBe(1);
    const [queued] = await store.outbox.claim(T0, { limit: 10, leaseMs: MINUTE });
    expect(queued).toMatchObject({ ...MAIL, attempts: 1, createdAt: T0 });
  });

  it('consume sets the password and ends every session of the user, once', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    await addSession(accounts, ada.id, 1, at(DAY));
    await addSession(accounts, ada.id, 2, at(DAY));
    await addSession(accounts, grace.id, 3, at(DAY));
    expect(await accounts.requestReset('ada@example.com', reset(1), MAIL)).toBe(true);
    const done = await accounts.completeReset(digest(1001), at(29 * MINUTE), OTHER_PHC);
    expect(done?.userId).toBe(ada.id);
    expect([...(done?.endedSessions ?? [])].sort()).toEqual([digest(1), digest(2)]);
    expect((await store.users.findByEmail('ada@example.com'))?.passwordHash).toBe(OTHER_PHC);
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
    expect(await store.sessions.findWithUser(digest(3))).not.toBeNull();
    expect(await accounts.completeReset(digest(1001), at(29 * MINUTE), PHC)).toBeNull();
    expect((await store.users.findByEmail('ada@example.com'))?.passwordHash).toBe(OTHER_PHC);
  });

  it('a new request replaces the account’s previous token', async () => {
    const { accounts } = current;
    await addUser(accounts, 'ada@example.com');
    await accounts.requestReset('ada@example.com', reset(1), MAIL);
    await accounts.requestReset('ada@example.com', reset(2), MAIL);
    expect(await accounts.completeReset(digest(1001), T0, OTHER_PHC)).toBeNull();
    expect(await accounts.completeReset(digest(1002), T0, OTHER_PHC)).not.toBeNull();
  });

  it('an expired token is refused and changes nothing; deleteExpired removes it', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await addSession(accounts, ada.id, 1, at(DAY));
    await accounts.requestReset('ada@example.com', reset(1, at(30 * MINUTE)), MAIL);
    expect(await accounts.completeReset(digest(1001), at(30 * MINUTE), OTHER_PHC)).toBeNull();
    expect((await store.users.findByEmail('ada@example.com'))?.passwordHash).toBe(PHC);
    expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
    expect((await store.deleteExpired(at(30 * MINUTE - 1))).oneTimeTokens['password-reset'] ?? 0).toBe(0);
    expect((await store.deleteExpired(at(30 * MINUTE))).oneTimeTokens['password-reset']).toBe(1);
    expect((await store.deleteExpired(at(30 * MINUTE))).oneTimeTokens['password-reset'] ?? 0).toBe(0);
  });

  it('of 10 concurrent uses of one token exactly one succeeds', async () => {
    const { accounts } = current;
    await addUser(accounts, 'ada@example.com');
    await accounts.requestReset('ada@example.com', reset(1), MAIL);
    const results = await Promise.all(Array.from({ length: 10 }, () => accounts.completeReset(digest(1001), T0, OTHER_PHC)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
  });
}
