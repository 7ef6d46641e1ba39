/**
 * The store contract: what the use cases rely on from every store adapter. Each adapter runs it
 * unchanged, like Lucia's `testAdapter`. Time is always passed in, so the cases use fixed dates
 * far from today: an adapter that read its own clock would fail them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewSession, Store, User } from '@sl/core';

/** The ports a store provides, plus its lifecycle. */
export type ContractStore = Store;

const T0 = new Date('2031-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const PHC = '$pbkdf2-sha256$i=1000$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
const OTHER_PHC = '$pbkdf2-sha256$i=600000$b3RoZXJzYWx0b3RoZXJzYQ$b3RoZXJoYXNob3RoZXJoYXNob3RoZXJoYXNob3RoZXI';

/** A 64-hex digest, as core's digestToken makes them. */
const digest = (n: number) => n.toString(16).padStart(64, '0');

/**
 * Registers the contract for one store. `open` must return a fresh, empty, ready store; it is
 * called before each case and the store closed after it.
 */
export function testStoreContract(name: string, open: () => Promise<ContractStore>): void {
  describe(`store contract: ${name}`, () => {
    let store: ContractStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    const addUser = async (email = 'ada@example.com', name = 'Ada'): Promise<User> => {
      const user = await store.users.insert({ name, email, passwordHash: PHC, createdAt: T0 });
      if (!user) throw new Error(`${email} was taken`);
      return user;
    };
    const addSession = async (userId: number, n: number, expiresAt: Date): Promise<NewSession> => {
      const session = { tokenDigest: digest(n), userId, createdAt: T0, expiresAt };
      await store.sessions.create(session);
      return session;
    };

    it('ping resolves', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    describe('users', () => {
      it('insert returns the user without its hash; findByEmail returns it with the hash', async () => {
        const user = await store.users.insert({ name: 'Ada Lovelace', email: 'ada@example.com', passwordHash: PHC, createdAt: T0 });
        expect(user).toEqual({ id: expect.any(Number), name: 'Ada Lovelace', email: 'ada@example.com' });
        expect(Number.isSafeInteger(user!.id)).toBe(true);
        expect(await store.users.findByEmail('ada@example.com')).toEqual({ ...user, passwordHash: PHC });
      });

      it('findByEmail of an unknown e-mail is null', async () => {
        await addUser('ada@example.com');
        expect(await store.users.findByEmail('grace@example.com')).toBeNull();
      });

      it('gives each user its own id', async () => {
        const a = await addUser('a@example.com');
        const b = await addUser('b@example.com');
        expect(a.id).not.toBe(b.id);
        expect((await store.users.findByEmail('b@example.com'))?.id).toBe(b.id);
      });

      it('insert of a taken e-mail returns null and leaves the first user as it was', async () => {
        const first = await addUser('ada@example.com', 'Ada');
        expect(await store.users.insert({ name: 'Impostor', email: 'ada@example.com', passwordHash: OTHER_PHC, createdAt: T0 })).toBeNull();
        expect(await store.users.findByEmail('ada@example.com')).toEqual({ ...first, passwordHash: PHC });
      });

      it('50 concurrent inserts of one e-mail create exactly one user', async () => {
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            store.users.insert({ name: `Racer ${i}`, email: 'race@example.com', passwordHash: PHC, createdAt: T0 }),
          ),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners).toHaveLength(1);
        expect(await store.users.findByEmail('race@example.com')).toEqual({ ...winners[0], passwordHash: PHC });
      });

      it('updatePasswordHash replaces the hash of that user only', async () => {
        const ada = await addUser('ada@example.com');
        await addUser('grace@example.com');
        await store.users.updatePasswordHash(ada.id, OTHER_PHC);
        expect((await store.users.findByEmail('ada@example.com'))?.passwordHash).toBe(OTHER_PHC);
        expect((await store.users.findByEmail('grace@example.com'))?.passwordHash).toBe(PHC);
      });

      it('updatePasswordHash of an unknown id changes nothing and does not throw', async () => {
        const ada = await addUser('ada@example.com');
        await expect(store.users.updatePasswordHash(ada.id + 1000, OTHER_PHC)).resolves.toBeUndefined();
        expect((await store.users.findByEmail('ada@example.com'))?.passwordHash).toBe(PHC);
      });
    });

    describe('sessions', () => {
      it('findWithUser returns the user and the expiry of a created session', async () => {
        const ada = await addUser();
        await addSession(ada.id, 1, at(7 * DAY));
        expect(await store.sessions.findWithUser(digest(1))).toEqual({ user: ada, expiresAt: at(7 * DAY) });
      });

      it('findWithUser of an unknown digest is null', async () => {
        const ada = await addUser();
        await addSession(ada.id, 1, at(DAY));
        expect(await store.sessions.findWithUser(digest(2))).toBeNull();
      });

      it('findWithUser returns an expired session too: judging expiry is the caller’s job', async () => {
        const ada = await addUser();
        await addSession(ada.id, 1, new Date('2001-01-01T00:00:00Z'));
        expect(await store.sessions.findWithUser(digest(1))).toEqual({ user: ada, expiresAt: new Date('2001-01-01T00:00:00Z') });
      });

      it('keeps the sessions of several users apart', async () => {
        const ada = await addUser('ada@example.com');
        const grace = await addUser('grace@example.com', 'Grace');
        await addSession(ada.id, 1, at(DAY));
        await addSession(grace.id, 2, at(2 * DAY));
        await addSession(ada.id, 3, at(3 * DAY));
        expect(await store.sessions.findWithUser(digest(2))).toEqual({ user: grace, expiresAt: at(2 * DAY) });
        expect(await store.sessions.findWithUser(digest(3))).toEqual({ user: ada, expiresAt: at(3 * DAY) });
      });

      it('delete returns the expiry once, then null; the session is gone', async () => {
        const ada = await addUser();
        await addSession(ada.id, 1, at(DAY));
        await addSession(ada.id, 2, at(DAY));
        expect(await store.sessions.delete(digest(1))).toEqual({ expiresAt: at(DAY) });
        expect(await store.sessions.delete(digest(1))).toBeNull();
        expect(await store.sessions.findWithUser(digest(1))).toBeNull();
        expect(await store.sessions.findWithUser(digest(2))).not.toBeNull();
      });

      it('delete of an unknown digest is null', async () => {
        expect(await store.sessions.delete(digest(9))).toBeNull();
      });

      it('of 10 concurrent deletes of one session exactly one reports it', async () => {
        const ada = await addUser();
        await addSession(ada.id, 1, at(DAY));
        const results = await Promise.all(Array.from({ length: 10 }, () => store.sessions.delete(digest(1))));
        expect(results.filter((r) => r !== null)).toEqual([{ expiresAt: at(DAY) }]);
      });

      it('deleteExpired(now) removes sessions that expired at or before now, counts them, keeps the rest', async () => {
        const ada = await addUser();
        await addSession(ada.id, 1, at(-DAY));
        await addSession(ada.id, 2, at(-1));
        await addSession(ada.id, 3, T0); // expiring exactly now counts as expired
        await addSession(ada.id, 4, at(1));
        await addSession(ada.id, 5, at(DAY));
        expect(await store.sessions.deleteExpired(T0)).toBe(3);
        for (const n of [1, 2, 3]) expect(await store.sessions.findWithUser(digest(n))).toBeNull();
        for (const n of [4, 5]) expect(await store.sessions.findWithUser(digest(n))).not.toBeNull();
        expect(await store.sessions.deleteExpired(T0)).toBe(0);
      });

      it('deleteExpired goes by the passed now, not the wall clock', async () => {
        const ada = await addUser();
        await addSession(ada.id, 1, new Date('2000-06-01T00:00:00Z'));
        expect(await store.sessions.deleteExpired(new Date('2000-01-01T00:00:00Z'))).toBe(0);
        expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
        expect(await store.sessions.deleteExpired(new Date('2000-06-01T00:00:00Z'))).toBe(1);
      });
    });

    describe('contacts', () => {
      it('add stores a message, with or without a user agent', async () => {
        const message = { name: 'Ada', email: 'ada@example.com', message: 'Hello there, a question.', clientIp: '203.0.113.7', receivedAt: T0 };
        await expect(store.contacts.add({ ...message, userAgent: 'curl/8.5.0' })).resolves.toBeUndefined();
        await expect(store.contacts.add({ ...message, userAgent: null, clientIp: '2001:db8::1' })).resolves.toBeUndefined();
      });

      it('add takes long and non-ASCII text as given', async () => {
        await expect(
          store.contacts.add({
            name: 'Zoë Ω',
            email: 'zoe@example.com',
            message: `${'Grüße 👋 '.repeat(500)}`.slice(0, 5000),
            clientIp: '::ffff:127.0.0.1',
            userAgent: 'Mozilla/5.0 (X11; Linux x86_64) "quoted"; \\ backslash',
            receivedAt: T0,
          }),
        ).resolves.toBeUndefined();
      });
    });

    describe('rate limiter', () => {
      const rule = { limit: 3, windowMs: HOUR };

      it('the first request opens a window ending windowMs later', async () => {
        expect(await store.rateLimiter.consume('login:203.0.113.1', rule, T0)).toEqual({ allowed: true, count: 1, resetAt: at(HOUR) });
      });

      it('counts within the window and keeps the reset time of its first request', async () => {
        const key = 'contact:203.0.113.1';
        expect(await store.rateLimiter.consume(key, rule, T0)).toEqual({ allowed: true, count: 1, resetAt: at(HOUR) });
        expect(await store.rateLimiter.consume(key, rule, at(MINUTE))).toEqual({ allowed: true, count: 2, resetAt: at(HOUR) });
        expect(await store.rateLimiter.consume(key, rule, at(30 * MINUTE))).toEqual({ allowed: true, count: 3, resetAt: at(HOUR) });
        expect(await store.rateLimiter.consume(key, rule, at(HOUR - 1))).toEqual({ allowed: false, count: 4, resetAt: at(HOUR) });
        expect(await store.rateLimiter.consume(key, rule, at(HOUR - 1))).toEqual({ allowed: false, count: 5, resetAt: at(HOUR) });
      });

      it('starts a new window at resetAt: the count resets and the window starts at that request', async () => {
        const key = 'signup:203.0.113.1';
        for (let i = 0; i < 5; i++) await store.rateLimiter.consume(key, rule, at(i * MINUTE));
        expect(await store.rateLimiter.consume(key, rule, at(HOUR))).toEqual({ allowed: true, count: 1, resetAt: at(2 * HOUR) });
        expect(await store.rateLimiter.consume(key, rule, at(HOUR + MINUTE))).toEqual({ allowed: true, count: 2, resetAt: at(2 * HOUR) });
        // Long after the window ended, the next request opens a window from its own time.
        expect(await store.rateLimiter.consume(key, rule, at(5 * DAY))).toEqual({ allowed: true, count: 1, resetAt: at(5 * DAY + HOUR) });
      });

      it('counts every key on its own', async () => {
        for (let i = 0; i < 4; i++) await store.rateLimiter.consume('login:198.51.100.1', rule, T0);
        expect(await store.rateLimiter.consume('login:198.51.100.2', rule, T0)).toEqual({ allowed: true, count: 1, resetAt: at(HOUR) });
        expect(await store.rateLimiter.consume('signup:198.51.100.1', rule, T0)).toEqual({ allowed: true, count: 1, resetAt: at(HOUR) });
      });

      it('of 100 concurrent requests with limit 5 exactly 5 are allowed, and each gets its own count', async () => {
        const hits = await Promise.all(
          Array.from({ length: 100 }, () => store.rateLimiter.consume('contact:192.0.2.1', { limit: 5, windowMs: HOUR }, T0)),
        );
        expect(hits.filter((h) => h.allowed)).toHaveLength(5);
        expect(hits.map((h) => h.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
        expect(new Set(hits.map((h) => h.resetAt.getTime()))).toEqual(new Set([at(HOUR).getTime()]));
      });

      it('deleteExpired(now) removes windows that ended at or before now and counts them', async () => {
        await store.rateLimiter.consume('a', { limit: 3, windowMs: MINUTE }, T0); // ends at(MINUTE)
        await store.rateLimiter.consume('b', { limit: 3, windowMs: HOUR }, T0); // ends at(HOUR)
        await store.rateLimiter.consume('c', { limit: 3, windowMs: HOUR }, at(-2 * HOUR)); // ended at(-HOUR)
        expect(await store.rateLimiter.deleteExpired(at(MINUTE))).toBe(2);
        expect(await store.rateLimiter.deleteExpired(at(MINUTE))).toBe(0);
        // 'b' kept its count; 'a' starts over.
        expect((await store.rateLimiter.consume('b', rule, at(2 * MINUTE))).count).toBe(2);
        expect((await store.rateLimiter.consume('a', rule, at(2 * MINUTE))).count).toBe(1);
      });

      it('deleteExpired goes by the passed now, not the wall clock', async () => {
        await store.rateLimiter.consume('old', rule, new Date('2000-01-01T00:00:00Z'));
        expect(await store.rateLimiter.deleteExpired(new Date('2000-01-01T00:30:00Z'))).toBe(0);
        expect(await store.rateLimiter.deleteExpired(new Date('2000-01-01T01:00:00Z'))).toBe(1);
      });
    });
  });
}
