import { expect, it } from 'vitest';
import type { CurrentStore } from '../current-store.ts';
import { addSession, addUser, at, DAY, digest, G0, MINUTE, T0 } from '../fixtures.ts';

/** Every way a session goes (delete, concurrent deletes, deleteExpired) is checked with findWithUser. */
export function sessionCases(current: CurrentStore): void {
  it('findWithUser returns the user and the expiry of a created session', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(7 * DAY));
    expect(await store.sessions.findWithUser(digest(1))).toEqual({ user: ada, expiresAt: at(7 * DAY) });
  });

  it('findWithUser of an unknown digest is null', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(DAY));
    expect(await store.sessions.findWithUser(digest(2))).toBeNull();
  });

  it('findWithUser returns an expired session too: judging expiry is the caller’s job', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, new Date('2001-01-01T00:00:00Z'));
    expect(await store.sessions.findWithUser(digest(1))).toEqual({ user: ada, expiresAt: new Date('2001-01-01T00:00:00Z') });
  });

  it('keeps the sessions of several users apart', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    await addSession(accounts, ada.id, 1, at(DAY));
    await addSession(accounts, grace.id, 2, at(2 * DAY));
    await addSession(accounts, ada.id, 3, at(3 * DAY));
    expect(await store.sessions.findWithUser(digest(2))).toEqual({ user: grace, expiresAt: at(2 * DAY) });
    expect(await store.sessions.findWithUser(digest(3))).toEqual({ user: ada, expiresAt: at(3 * DAY) });
  });

  it('delete returns the expiry once, then null; the session is gone, its user and other sessions stay', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(DAY));
    await addSession(accounts, ada.id, 2, at(DAY));
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
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(DAY));
    expect(await store.sessions.delete(digest(9))).toBeNull();
    expect(await store.sessions.findWithUser(digest(1))).toEqual({ user: ada, expiresAt: at(DAY) });
  });

  it('of 10 concurrent deletes of one session exactly one reports it, and the session is gone', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(DAY));
    const results = await Promise.all(Array.from({ length: 10 }, () => store.sessions.delete(digest(1))));
    expect(results.filter((r) => r !== null)).toEqual([{ expiresAt: at(DAY) }]);
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
  });

  it('deleteExpired(now) removes sessions that expired at or before now, counts them, keeps the rest', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(-DAY));
    await addSession(accounts, ada.id, 2, at(-1));
    await addSession(accounts, ada.id, 3, T0); // expiring exactly now counts as expired
    await addSession(accounts, ada.id, 4, at(1));
    await addSession(accounts, ada.id, 5, at(DAY));
    expect((await store.deleteExpired(T0)).sessions).toBe(3);
    for (const n of [1, 2, 3]) expect(await store.sessions.findWithUser(digest(n))).toBeNull();
    for (const n of [4, 5]) expect(await store.sessions.findWithUser(digest(n))).not.toBeNull();
    expect((await store.deleteExpired(T0)).sessions).toBe(0);
  });

  it('deleteExpired goes by the passed now, not the wall clock', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, new Date('2000-06-01T00:00:00Z'));
    expect((await store.deleteExpired(new Date('2000-01-01T00:00:00Z'))).sessions).toBe(0);
    expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
    expect((await store.deleteExpired(new Date('2000-06-01T00:00:00Z'))).sessions).toBe(1);
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
  });
  it('create with maxPerUser ends the oldest sessions beyond it, never the new one, nor another user’s, and reports them to the feed', async () => {
    const { store, accounts } = current;
    const heard: string[] = [];
    const unsubscribe = store.revocations.subscribe({ revoked: (digests) => void (digests === 'all' ? heard.push('all') : heard.push(...digests)) });
    const waitFor = async (done: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      // A feed from a database says 'all' once it listens: wait for that, then listen for the digests.
      const subscribedAt = performance.now();
      await waitFor(() => store.revocations.lagMs() <= performance.now() - subscribedAt);
      heard.length = 0;
      const ada = await addUser(accounts);
      const grace = await addUser(accounts, 'grace@example.com', 'Grace');
      await addSession(accounts, grace.id, 100, at(DAY));
      // Created out of digest order, so the order is the creation time's.
      for (const [i, n] of [5, 3, 4, 1, 2].entries()) {
        await accounts.startSession({ tokenDigest: digest(n), userId: ada.id, credentialGeneration: G0, createdAt: at(i * MINUTE), expiresAt: at(DAY) }, 3);
      }
      const live = async (ns: number[]) => (await Promise.all(ns.map(async (n) => (await store.sessions.findWithUser(digest(n))) !== null)));
      expect(await live([5, 3, 4, 1, 2, 100])).toEqual([false, false, true, true, true, true]);
      // A new session with an older creation time than the rest is still kept; the oldest other goes.
      await accounts.startSession({ tokenDigest: digest(6), userId: ada.id, credentialGeneration: G0, createdAt: T0, expiresAt: at(DAY) }, 3);
      expect(await live([6, 4, 1, 2])).toEqual([true, false, true, true]);
      await waitFor(() => [5, 3, 4].every((n) => heard.includes(digest(n))));
      expect(heard).toEqual(expect.arrayContaining([digest(5), digest(3), digest(4)]));
      expect(heard).not.toContain(digest(6));
      expect(heard).not.toContain(digest(100));
    } finally {
      unsubscribe();
    }
  });

  it('20 concurrent creates with maxPerUser 3 leave exactly 3 sessions of that user', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await Promise.all(
      Array.from({ length: 20 }, (_, n) => accounts.startSession({ tokenDigest: digest(n + 1), userId: ada.id, credentialGeneration: G0, createdAt: at(n), expiresAt: at(DAY) }, 3)),
    );
    const found = await Promise.all(Array.from({ length: 20 }, (_, n) => store.sessions.findWithUser(digest(n + 1))));
    expect(found.filter((f) => f !== null)).toHaveLength(3);
  });

  it('create without maxPerUser keeps every session', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    for (let n = 1; n <= 60; n++) await addSession(accounts, ada.id, n, at(DAY));
    expect((await Promise.all(Array.from({ length: 60 }, (_, n) => store.sessions.findWithUser(digest(n + 1))))).every((f) => f !== null)).toBe(true);
  });
}
