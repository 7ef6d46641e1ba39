/**
 * The activity log, the account lock and the operator's directory (issue 43): events are written in
 * the unit of work of their change (none for a change that rolled back), listed newest first with a
 * cursor and a type filter, counted under a summary key (concurrent counts all count), deleted by
 * age; the lock is a compare-and-set on the generation, so a lock racing a login leaves no session.
 */
import { expect, it } from 'vitest';
import type { ActivityEntry, NewActivity } from '@sl-accounts/service/core';
import type { CurrentStore } from '../current-store.ts';
import { addSession, addUser, at, DAY, digest, G0, HOUR, T0 } from '../fixtures.ts';

const entry = (type: ActivityEntry['type'], ms = 0, details: ActivityEntry['details'] = {}): ActivityEntry => ({ type, at: at(ms), clientIp: '203.0.113.7', userAgent: 'agent', actor: null, details });
const event = (userId: number | null, type: ActivityEntry['type'], ms = 0, details: ActivityEntry['details'] = {}): NewActivity => ({ ...entry(type, ms, details), userId });

export function activityCases(current: CurrentStore): void {
  it('stores an event exactly as given and lists it newest first', async () => {
    const { store } = current;
    const ada = await addUser(current.accounts, 'ada@example.com');
    await store.activity.append(event(ada.id, 'signed-in', 0, { method: 'password', newDevice: true, note: 'ünïcode 🚀', none: null, n: 3 }));
    await store.activity.append(event(ada.id, 'name-changed', 1));
    await store.activity.append({ ...event(null, 'account-locked', 2, { reason: 'why' }), actor: 'alice', clientIp: null, userAgent: null });
    const listed = await store.activity.list({ userId: ada.id, limit: 10 });
    expect(listed.map((e) => e.type)).toEqual(['name-changed', 'signed-in']);
    expect(listed[1]).toEqual({ ...event(ada.id, 'signed-in', 0, { method: 'password', newDevice: true, note: 'ünïcode 🚀', none: null, n: 3 }), id: expect.any(Number), count: 1 });
    const all = await store.activity.list({ limit: 10 });
    expect(all.map((e) => e.type)).toEqual(['account-locked', 'name-changed', 'signed-in']);
    expect(all[0]).toMatchObject({ userId: null, actor: 'alice', clientIp: null, userAgent: null, details: { reason: 'why' } });
  });

  it('pages by cursor and filters by type', async () => {
    const { store } = current;
    const ada = await addUser(current.accounts, 'ada@example.com');
    for (let i = 0; i < 7; i++) await store.activity.append(event(ada.id, i % 2 ? 'signed-in' : 'name-changed', i));
    const first = await store.activity.list({ userId: ada.id, limit: 3 });
    const second = await store.activity.list({ userId: ada.id, before: first.at(-1)!.id, limit: 3 });
    const third = await store.activity.list({ userId: ada.id, before: second.at(-1)!.id, limit: 3 });
    expect([...first, ...second, ...third].map((e) => e.at.getTime() - T0.getTime())).toEqual([6, 5, 4, 3, 2, 1, 0]);
    expect((await store.activity.list({ type: 'signed-in', limit: 10 })).map((e) => e.at.getTime() - T0.getTime())).toEqual([5, 3, 1]);
    expect(await store.activity.list({ userId: ada.id + 1000, limit: 10 })).toEqual([]);
  });

  it('counts concurrent events under one summary key as one row', async () => {
    const { store } = current;
    const ada = await addUser(current.accounts, 'ada@example.com');
    await Promise.all(Array.from({ length: 20 }, () => store.activity.count(event(ada.id, 'sign-in-failed'), `failed:${ada.id}:hour`)));
    await store.activity.count(event(ada.id, 'sign-in-failed', HOUR), `failed:${ada.id}:next`);
    const failed = await store.activity.list({ userId: ada.id, type: 'sign-in-failed', limit: 10 });
    expect(failed.map((e) => e.count)).toEqual([1, 20]);
  });

  it('an event appended in a unit of work that rolls back is gone with it', async () => {
    const { store } = current;
    const ada = await addUser(current.accounts, 'ada@example.com');
    await expect(
      store.transaction(async (tx) => {
        await tx.users.update(ada.id, { name: 'Changed' });
        await tx.activity.append(event(ada.id, 'name-changed'));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await store.activity.list({ userId: ada.id, limit: 10 })).toEqual([]);
    expect((await store.users.findById(ada.id))?.name).toBe('Ada');
  });

  it('deleteBefore deletes events older than the cutoff and says how many; events outlive their account', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await store.activity.append(event(ada.id, 'signed-in', 0));
    await store.activity.append(event(ada.id, 'signed-in', DAY));
    expect(await accounts.deleteAccount(ada.id, G0, null, entry('account-deleted', 2 * DAY))).toEqual([]);
    expect(await store.activity.deleteBefore(at(DAY))).toBe(1);
    expect((await store.activity.list({ userId: ada.id, limit: 10 })).map((e) => e.type)).toEqual(['account-deleted', 'signed-in']);
  });

  it('a session started with its event writes both; the lock ends it, marks the row and moves the generation', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const session = { tokenDigest: digest(1), userId: ada.id, credentialGeneration: G0, createdAt: T0, expiresAt: at(DAY) };
    expect(await accounts.startSession(session, 10, null, entry('signed-in'))).toBe(true);
    expect(await accounts.lockAccount(ada.id, { ...entry('account-locked', 1), actor: 'alice' })).toEqual([digest(1)]);
    const locked = await store.users.findById(ada.id);
    expect(locked).toMatchObject({ locked: true, credentialGeneration: G0 + 1 });
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
    // A login that read the old generation stores nothing.
    expect(await accounts.startSession({ ...session, tokenDigest: digest(2) }, 10, null, entry('signed-in', 2))).toBe(false);
    expect((await store.activity.list({ userId: ada.id, limit: 10 })).map((e) => e.type)).toEqual(['account-locked', 'signed-in']);
    expect(await accounts.unlockAccount(ada.id, entry('account-unlocked', 3))).toMatchObject({ id: ada.id });
    // Unlocked is the field left out, as a new account's.
    expect((await store.users.findById(ada.id))?.locked).toBeUndefined();
    expect(await accounts.lockAccount(ada.id + 1000, entry('account-locked'))).toBeNull();
  });

  it('a lock racing logins leaves no session', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const logins = Array.from({ length: 20 }, (_, i) =>
      accounts.startSession({ tokenDigest: digest(100 + i), userId: ada.id, credentialGeneration: G0, createdAt: T0, expiresAt: at(DAY) }, 50, null, entry('signed-in')),
    );
    const lock = accounts.lockAccount(ada.id, entry('account-locked'));
    await Promise.all([...logins, lock]);
    expect(await store.sessions.listByUser(ada.id, T0)).toEqual([]);
  });

  it('endAllSessions and removeSecondFactors end the sessions with their event', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await addSession(accounts, ada.id, 1, at(DAY));
    await store.recoveryCodes.replace(ada.id, [digest(9)]);
    expect(await accounts.endAllSessions(ada.id, entry('sessions-ended'))).toEqual([digest(1)]);
    expect(await accounts.removeSecondFactors(ada.id, entry('factor-removed', 1))).toEqual([]);
    expect(await store.recoveryCodes.count(ada.id)).toBe(0);
    expect((await store.activity.list({ userId: ada.id, limit: 10 })).map((e) => [e.type, e.details.sessions ?? null])).toEqual([
      ['factor-removed', null],
      ['sessions-ended', 1],
    ]);
  });

  it('the directory finds accounts by the start of their address, by id, with a cursor; % and _ are only characters', async () => {
    const { store, accounts } = current;
    const a = await addUser(accounts, 'ann@example.com');
    const b = await addUser(accounts, 'anna@example.com');
    await addUser(accounts, 'bob@example.com');
    const c = await addUser(accounts, 'an_x@example.com');
    expect((await store.directory.search('ann', null, 10)).map((u) => u.id)).toEqual([a.id, b.id]);
    expect((await store.directory.search('an', a.id, 1)).map((u) => u.id)).toEqual([b.id]);
    expect((await store.directory.search('an_', null, 10)).map((u) => u.id)).toEqual([c.id]);
    expect(await store.directory.search('a%', null, 10)).toEqual([]);
    expect(await store.directory.search('', null, 10)).toHaveLength(4);
  });

  it('the directory lists the contact messages sent from an address', async () => {
    const { store } = current;
    const message = { name: 'Ada', email: 'ada@example.com', message: 'Hello', clientIp: '203.0.113.7', userAgent: null, receivedAt: T0 };
    await store.contacts.add(message);
    await store.contacts.add({ ...message, email: 'grace@example.com', message: 'Other' });
    await store.contacts.add({ ...message, message: 'Again', receivedAt: at(1) });
    expect(await store.directory.contactsFrom('ada@example.com', 10)).toEqual([message, { ...message, message: 'Again', receivedAt: at(1) }]);
  });
  it("the directory lists an account's pending links, metadata only, and none of another's", async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const grace = await addUser(accounts, 'grace@example.com');
    expect(await store.directory.pendingLinks(ada.id)).toEqual({ emailLink: null, passwordReset: null });
    const token = { digest: digest(7), purpose: 'change-email' as const, email: 'ada@new.example', credentialGeneration: G0, data: null, failures: 0, createdAt: T0, expiresAt: at(DAY) };
    expect(await accounts.requestEmailLink(ada.id, { token, mails: [] })).toBe(true);
    expect(await accounts.requestReset('ada@example.com', { tokenDigest: digest(8), createdAt: T0, expiresAt: at(HOUR) }, { to: 'ada@example.com', subject: 's', text: 't' })).toBe(true);
    expect(await store.directory.pendingLinks(ada.id)).toEqual({ emailLink: { purpose: 'change', email: 'ada@new.example', createdAt: T0, expiresAt: at(DAY) }, passwordReset: { createdAt: T0, expiresAt: at(HOUR) } });
    expect(await store.directory.pendingLinks(grace.id)).toEqual({ emailLink: null, passwordReset: null });
  });
}
