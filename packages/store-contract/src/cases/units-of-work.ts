import { expect, it } from 'vitest';
import { EmailTaken, type Repositories, type Store } from '@sl-accounts/service/core';
import type { CurrentStore } from '../current-store.ts';
import { addSession, addUser, at, DAY, digest, G0, MINUTE, oneTime, OTHER_PHC, PHC, T0 } from '../fixtures.ts';

const NEW_USER = { name: 'Grace', email: 'grace@example.com', passwordHash: PHC, createdAt: T0 };
const MESSAGE = { name: 'Ada', email: 'ada@example.com', message: 'A message long enough.', clientIp: '192.0.2.1', userAgent: null, receivedAt: T0 };
const resetToken = (userId: number | null, n = 1) => oneTime(1000 + n, 'password-reset', userId, { email: 'ada@example.com', expiresAt: at(30 * MINUTE) });
const emailToken = (userId: number, n = 1, credentialGeneration = G0) => oneTime(2000 + n, 'verify-email', userId, { email: 'ada@example.com', credentialGeneration });
/** Puts a reset token in its address's slot, as the core does. */
const putReset = (repositories: Repositories, userId: number | null, n = 1) => repositories.oneTimeTokens.put(resetToken(userId, n), { slot: 'reset:ada@example.com' });
/** Puts an e-mail token in its account's slot under its generation, as the core does. */
const putEmail = (repositories: Repositories, token: ReturnType<typeof emailToken>) => repositories.oneTimeTokens.put(token, { underGeneration: true, slot: `email:${token.userId}` });
const takeReset = (repositories: Repositories, n: number, now: Date) => repositories.oneTimeTokens.take('password-reset', digest(1000 + n), now);
const takeEmail = (repositories: Repositories, n: number, now: Date) => repositories.oneTimeTokens.take(['verify-email', 'change-email'], digest(2000 + n), now);

/** A unit of work that writes through every repository, then waits for `leave` before it ends. */
async function writeEverything(store: Store, adaId: number, leave: Promise<void>, entered: () => void) {
  return store.transaction(async (tx: Repositories) => {
    const grace = await tx.users.insert(NEW_USER);
    await tx.users.update(adaId, { name: 'Augusta', passwordHash: OTHER_PHC, credentialGeneration: G0 + 1 }, { credentialGeneration: G0 });
    await tx.sessions.delete(digest(1));
    await tx.sessions.insert({ tokenDigest: digest(3), userId: grace!.id, credentialGeneration: G0, createdAt: T0, expiresAt: at(DAY) });
    await takeReset(tx, 1, T0);
    await putEmail(tx, emailToken(grace!.id, 2));
    await tx.contacts.add(MESSAGE);
    await tx.outbox.add({ to: 'grace@example.com', subject: 'Welcome', text: 'text', queuedAt: T0 });
    entered();
    await leave;
    return grace!;
  });
}

/** The store's units of work, and the members the account rules build on, one by one. */
export function unitOfWorkCases(current: CurrentStore): void {
  it('a unit of work commits every write when it resolves, answers its value, and tells the feed what it ended', async () => {
    const { store, accounts, inspect } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(DAY));
    await putReset(store, ada.id);
    const heard: string[] = [];
    const unsubscribe = store.revocations.subscribe({ revoked: (d) => void (d !== 'all' && heard.push(...d)) });
    const until = async (done: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      // A feed from a database listens once it is caught up since the subscription.
      const subscribedAt = performance.now();
      await until(() => store.revocations.lagMs() <= performance.now() - subscribedAt);
      const grace = await writeEverything(store, ada.id, Promise.resolve(), () => {});
      expect(await store.users.findById(ada.id)).toEqual({ ...ada, name: 'Augusta', passwordHash: OTHER_PHC, credentialGeneration: G0 + 1 });
      expect(await store.users.findByEmail('grace@example.com')).toEqual({ ...grace });
      expect(await store.sessions.findWithUser(digest(1))).toBeNull();
      expect(await store.sessions.findWithUser(digest(3))).not.toBeNull();
      expect(await takeReset(store, 1, T0)).toBeNull();
      expect(await takeEmail(store, 2, T0)).toMatchObject({ userId: grace.id });
      expect(await inspect.contactMessages()).toStrictEqual([MESSAGE]);
      expect((await store.outbox.claim(T0, { limit: 10, leaseMs: MINUTE })).map((m) => m.subject)).toEqual(['Welcome']);
      // A feed from a database tells it when it comes: the ended session is among what it says.
      await until(() => heard.includes(digest(1)));
      expect(heard).toContain(digest(1));
    } finally {
      unsubscribe();
    }
  });

  it('a unit of work that throws writes nothing, passes its error on, and nothing it wrote is ever seen outside it', async () => {
    const { store, accounts, inspect } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(DAY));
    await putReset(store, ada.id);
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let leave!: (error: Error) => void;
    const failure = new Error('the work failed');
    const unit = writeEverything(store, ada.id, new Promise<void>((_resolve, reject) => (leave = reject)), entered);
    await inside;
    // Outside the unit while it is open: these see none of its writes, now or after its rollback
    // (a store may answer them at once, or after the unit; never inside it).
    const meanwhile = Promise.all([store.users.findByEmail('grace@example.com'), store.sessions.findWithUser(digest(1)), store.users.findById(ada.id)]);
    leave(failure);
    await expect(unit).rejects.toBe(failure);
    const [grace, session, adaThen] = await meanwhile;
    expect(grace).toBeNull();
    expect(session).not.toBeNull();
    expect(adaThen).toEqual({ ...ada, passwordHash: PHC, credentialGeneration: G0 });
    expect(await store.users.findByEmail('grace@example.com')).toBeNull();
    expect(await store.users.findById(ada.id)).toEqual({ ...ada, passwordHash: PHC, credentialGeneration: G0 });
    expect(await store.sessions.findWithUser(digest(1))).toEqual({ user: ada, expiresAt: at(DAY) });
    expect(await store.sessions.findWithUser(digest(3))).toBeNull();
    expect(await takeReset(store, 1, T0)).toMatchObject({ userId: ada.id });
    expect(await takeEmail(store, 2, T0)).toBeNull();
    expect(await inspect.contactMessages()).toEqual([]);
    expect(await store.outbox.depth()).toBe(0);
    // The address the rolled-back insert took is free; the store works on.
    expect(await store.users.insert(NEW_USER)).toMatchObject({ email: 'grace@example.com' });
  });

  it('users.update is a compare-and-set: it writes only while the row holds what is expected, and answers the row', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const record = { ...ada, passwordHash: PHC, credentialGeneration: G0 };
    expect(await store.users.update(ada.id, { passwordHash: OTHER_PHC }, { credentialGeneration: G0 + 1 })).toBeNull();
    expect(await store.users.update(ada.id, { emailVerified: true }, { email: 'other@example.com' })).toBeNull();
    expect(await store.users.update(ada.id + 1000, { name: 'Nobody' })).toBeNull();
    expect(await store.users.findById(ada.id)).toEqual(record);
    expect(await store.users.update(ada.id, { emailVerified: true }, { email: ada.email, credentialGeneration: G0 })).toEqual({ ...record, emailVerified: true });
    expect(await store.users.update(ada.id, { name: 'Augusta', email: 'augusta@example.com', credentialGeneration: G0 + 1 })).toEqual({
      ...record,
      name: 'Augusta',
      email: 'augusta@example.com',
      emailVerified: true,
      credentialGeneration: G0 + 1,
    });
    expect(await store.users.findByEmail('ada@example.com')).toBeNull();
    expect((await store.users.findByEmail('augusta@example.com'))?.id).toBe(ada.id);
  });

  it('users.update to another user’s address throws EmailTaken and writes nothing; in a unit of work the unit rolls back', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    await expect(store.users.update(ada.id, { email: 'grace@example.com', name: 'Thief' })).rejects.toBeInstanceOf(EmailTaken);
    const taken = store.transaction(async (tx) => {
      await tx.users.update(ada.id, { name: 'Renamed first' });
      return tx.users.update(ada.id, { email: 'grace@example.com' });
    });
    await expect(taken).rejects.toBeInstanceOf(EmailTaken);
    expect(await store.users.findById(ada.id)).toMatchObject({ name: ada.name, email: ada.email });
    expect((await store.users.findByEmail('grace@example.com'))?.id).toBe(grace.id);
    // Its own address is no conflict.
    expect(await store.users.update(ada.id, { email: ada.email })).toMatchObject({ email: ada.email });
  });

  it('users.delete removes the user with its sessions and tokens, once', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    await addSession(accounts, ada.id, 1, at(DAY));
    await putReset(store, ada.id);
    expect(await putEmail(store, emailToken(ada.id))).toBe(true);
    expect(await store.users.delete(ada.id)).toBe(true);
    expect(await store.users.delete(ada.id)).toBe(false);
    expect(await store.users.findById(ada.id)).toBeNull();
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
    expect(await takeReset(store, 1, T0)).toBeNull();
    expect(await takeEmail(store, 1, T0)).toBeNull();
  });

  it('sessions.deleteByUser keeps the one named and the newest others (by creation time, then the greater digest), and no one else’s', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    const times = [0, MINUTE, MINUTE, 2 * MINUTE, 3 * MINUTE];
    for (const [i, t] of times.entries()) await store.sessions.insert({ tokenDigest: digest(i + 1), userId: ada.id, credentialGeneration: G0, createdAt: at(t), expiresAt: at(DAY) });
    await addSession(accounts, grace.id, 9, at(DAY));
    // Keep session 1 (the oldest) and the two newest others: 5, then 4; of 2 and 3 (one time) 3 is newer.
    expect([...(await store.sessions.deleteByUser(ada.id, { except: digest(1), keepNewest: 3 }))].sort()).toEqual([digest(2)]);
    expect([...(await store.sessions.deleteByUser(ada.id, { except: digest(1), keepNewest: 2 }))].sort()).toEqual([digest(3)]);
    expect([...(await store.sessions.deleteByUser(ada.id, { except: digest(4) }))].sort()).toEqual([digest(1), digest(5)]);
    expect(await store.sessions.deleteByUser(ada.id, { except: digest(4) })).toEqual([]);
    expect(await store.sessions.deleteByUser(ada.id)).toEqual([digest(4)]);
    expect(await store.sessions.findWithUser(digest(9))).not.toBeNull();
  });

  it('tokens: a take answers the token once and only before it expires (an expired one stays for the sweep); an e-mail token is put only under the user’s generation', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    expect(await putReset(store, null, 1)).toBe(true);
    expect(await takeReset(store, 1, at(30 * MINUTE))).toBeNull();
    expect(await takeReset(store, 1, T0)).toEqual(resetToken(null, 1));
    expect(await takeReset(store, 1, T0)).toBeNull();
    // In its slot (the address), the newest replaces the one before, bound to an account or not.
    await putReset(store, null, 2);
    await putReset(store, ada.id, 3);
    expect(await takeReset(store, 2, T0)).toBeNull();
    expect(await putEmail(store, emailToken(ada.id, 1, G0 + 1))).toBe(false);
    expect(await putEmail(store, emailToken(ada.id + 1000, 2))).toBe(false);
    expect(await putEmail(store, emailToken(ada.id, 3))).toBe(true);
    expect(await takeEmail(store, 3, at(DAY))).toBeNull();
    expect(await takeEmail(store, 3, T0)).toEqual(emailToken(ada.id, 3));
    expect(await store.deleteExpired(at(DAY))).toEqual({ sessions: 0, standIns: 0, oneTimeTokens: { 'password-reset': 1 } });
  });

  it('tokens: a take names the purposes it accepts; a token of another purpose is not taken and stays for its own', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts);
    const reset = resetToken(ada.id, 1);
    const challenge = oneTime(3001, 'login', ada.id, { failures: 2, data: '{"next":"/"}' });
    expect(await putReset(store, ada.id, 1)).toBe(true);
    expect(await store.oneTimeTokens.put(challenge, { underGeneration: true })).toBe(true);
    // A reset token never verifies an address; a login challenge never serves a passkey ceremony.
    expect(await store.oneTimeTokens.take(['verify-email', 'change-email'], digest(1001), T0)).toBeNull();
    expect(await store.oneTimeTokens.take(['passkey-sign-in', 'passkey-second-factor'], digest(3001), T0)).toBeNull();
    expect(await store.oneTimeTokens.take('password-reset', digest(3001), T0)).toBeNull();
    // Both are still there for their own purpose, with every field as put.
    expect(await store.oneTimeTokens.take('password-reset', digest(1001), T0)).toEqual(reset);
    expect(await store.oneTimeTokens.take(['sign-in-state', 'login'], digest(3001), T0)).toEqual(challenge);
  });
}
