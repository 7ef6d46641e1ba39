import { expect, it } from 'vitest';
import type { CurrentStore } from '../contract.ts';
import { addSession, addUser, at, DAY, digest, T0 } from '../fixtures.ts';

/** Every way a session goes (delete, concurrent deletes, deleteExpired) is checked with findWithUser. */
export function sessionCases(current: CurrentStore): void {
  it('findWithUser returns the user and the expiry of a created session', async () => {
    const { store } = current;
    const ada = await addUser(store);
    await addSession(store, ada.id, 1, at(7 * DAY));
    expect(await store.sessions.findWithUser(digest(1))).toEqual({ user: ada, expiresAt: at(7 * DAY) });
  });

  it('findWithUser of an unknown digest is null', async () => {
    const { store } = current;
    const ada = await addUser(store);
    await addSession(store, ada.id, 1, at(DAY));
    expect(await store.sessions.findWithUser(digest(2))).toBeNull();
  });

  it('findWithUser returns an expired session too: judging expiry is the caller’s job', async () => {
    const { store } = current;
    const ada = await addUser(store);
    await addSession(store, ada.id, 1, new Date('2001-01-01T00:00:00Z'));
    expect(await store.sessions.findWithUser(digest(1))).toEqual({ user: ada, expiresAt: new Date('2001-01-01T00:00:00Z') });
  });

  it('keeps the sessions of several users apart', async () => {
    const { store } = current;
    const ada = await addUser(store, 'ada@example.com');
    const grace = await addUser(store, 'grace@example.com', 'Grace');
    await addSession(store, ada.id, 1, at(DAY));
    await addSession(store, grace.id, 2, at(2 * DAY));
    await addSession(store, ada.id, 3, at(3 * DAY));
    expect(await store.sessions.findWithUser(digest(2))).toEqual({ user: grace, expiresAt: at(2 * DAY) });
    expect(await store.sessions.findWithUser(digest(3))).toEqual({ user: ada, expiresAt: at(3 * DAY) });
  });

  it('delete returns the expiry once, then null; the session is gone, its user and other sessions stay', async () => {
    const { store } = current;
    const ada = await addUser(store);
    await addSession(store, ada.id, 1, at(DAY));
    await addSession(store, ada.id, 2, at(DAY));
    expect(await store.sessions.delete(digest(1))).toEqual({ expiresAt: at(DAY) });
    expect(await store.sessions.delete(digest(1))).toBeNull();
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
    expect(await store.sessions.findWithUser(digest(2))).toEqual({ user: ada, expiresAt: at(DAY) });
    expect(await store.users.findByEmail(ada.email)).toMatchObject(ada);
  });

  it('delete of an unknown digest is null', async () => {
    expect(await current.store.sessions.delete(digest(9))).toBeNull();
  });

  it('delete of an unknown digest leaves the existing sessions', async () => {
    const { store } = current;
    const ada = await addUser(store);
    await addSession(store, ada.id, 1, at(DAY));
    expect(await store.sessions.delete(digest(9))).toBeNull();
    expect(await store.sessions.findWithUser(digest(1))).toEqual({ user: ada, expiresAt: at(DAY) });
  });

  it('of 10 concurrent deletes of one session exactly one reports it, and the session is gone', async () => {
    const { store } = current;
    const ada = await addUser(store);
    await addSession(store, ada.id, 1, at(DAY));
    const results = await Promise.all(Array.from({ length: 10 }, () => store.sessions.delete(digest(1))));
    expect(results.filter((r) => r !== null)).toEqual([{ expiresAt: at(DAY) }]);
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
  });

  it('deleteExpired(now) removes sessions that expired at or before now, counts them, keeps the rest', async () => {
    const { store } = current;
    const ada = await addUser(store);
    await addSession(store, ada.id, 1, at(-DAY));
    await addSession(store, ada.id, 2, at(-1));
    await addSession(store, ada.id, 3, T0); // expiring exactly now counts as expired
    await addSession(store, ada.id, 4, at(1));
    await addSession(store, ada.id, 5, at(DAY));
    expect(await store.sessions.deleteExpired(T0)).toBe(3);
    for (const n of [1, 2, 3]) expect(await store.sessions.findWithUser(digest(n))).toBeNull();
    for (const n of [4, 5]) expect(await store.sessions.findWithUser(digest(n))).not.toBeNull();
    expect(await store.sessions.deleteExpired(T0)).toBe(0);
  });

  it('deleteExpired goes by the passed now, not the wall clock', async () => {
    const { store } = current;
    const ada = await addUser(store);
    await addSession(store, ada.id, 1, new Date('2000-06-01T00:00:00Z'));
    expect(await store.sessions.deleteExpired(new Date('2000-01-01T00:00:00Z'))).toBe(0);
    expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
    expect(await store.sessions.deleteExpired(new Date('2000-06-01T00:00:00Z'))).toBe(1);
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
  });
}
