/**
 * The memory store's units of work (see gate.ts): one at a time, in arrival order, calls outside
 * them between units, and a call on the store from inside one refused (on a store with one
 * connection it would wait for ever), so the core's tests on this store find such a call.
 */
import { describe, expect, it } from 'vitest';
import { createAccounts, randomTokens } from '@sl-accounts/service/core';
import { ManualClock, testHasher } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

const ADA = { name: 'Ada', email: 'ada@example.com', passwordHash: '$pbkdf2-sha256$i=1$YQ$YQ', createdAt: new Date('2030-01-01T00:00:00Z') };

describe('the memory store’s units of work', () => {
  it('refuses a call on the store itself from inside one of its units of work, and the unit rolls back', async () => {
    const store = createMemoryStore();
    const calls = [
      () => store.users.findByEmail('ada@example.com'),
      () => store.sessions.findWithUser('0'.repeat(64)),
      () => store.rateLimiter.consume('k', { limit: 1, windowMs: 1_000 }, ADA.createdAt),
      () => store.outbox.depth(),
      () => store.contacts.add({ name: 'A', email: 'a@example.com', message: 'hello there', clientIp: '192.0.2.1', userAgent: null, receivedAt: ADA.createdAt }),
      () => store.deviceKeys.getOrCreate('x'.repeat(43)),
      () => store.deleteExpired(ADA.createdAt),
    ];
    for (const call of calls) {
      const unit = store.transaction(async (tx) => {
        await tx.users.insert(ADA);
        return call();
      });
      await expect(unit).rejects.toThrow(/from inside one of its units of work: use the unit's own repositories/);
      expect(await store.users.findByEmail('ada@example.com')).toBeNull();
    }
  });

  it('units of work do not nest, and a unit’s repositories refuse calls once it ended', async () => {
    const store = createMemoryStore();
    await expect(store.transaction(() => store.transaction(async () => 1))).rejects.toThrow(/do not nest/);
    let kept: Parameters<Parameters<typeof store.transaction>[0]>[0] | undefined;
    await store.transaction(async (tx) => void (kept = tx));
    await expect(kept!.users.insert(ADA)).rejects.toThrow(/after its unit of work ended/);
    expect(await store.users.findByEmail('ada@example.com')).toBeNull();
  });

  it('runs units one at a time in arrival order; a call outside waits for the unit that holds the store', async () => {
    const store = createMemoryStore();
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = store.transaction(async (tx) => {
      order.push('first begins');
      await tx.users.insert(ADA);
      await held;
      order.push('first ends');
    });
    const second = store.transaction(async () => void order.push('second'));
    const outside = store.users.findByEmail(ADA.email).then((found) => void order.push(`outside ${found ? 'sees' : 'misses'} the user`));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['first begins']);
    release();
    await Promise.all([first, second, outside]);
    expect(order).toEqual(['first begins', 'first ends', 'second', 'outside sees the user']);
  });

  it('every use case runs on it without calling the store from inside a unit of work', async () => {
    // The use cases' own tests run on this store; here the whole life of one account, as a smoke test.
    const accounts = createAccounts({ store: createMemoryStore(), hasher: testHasher, clock: new ManualClock(), tokens: randomTokens });
    const meta = { clientIp: '192.0.2.1' };
    const { session } = await accounts.signup({ name: 'Ada', email: 'ada@example.com', password: 'correct horse' }, meta);
    const signedIn = { ...meta, sessionToken: session.token };
    await accounts.login({ email: 'ada@example.com', password: 'correct horse' }, meta);
    await accounts.updateProfile({ name: 'Augusta' }, signedIn);
    await accounts.changePassword({ currentPassword: 'correct horse', newPassword: 'battery staple' }, signedIn);
    await accounts.requestPasswordReset({ email: 'ada@example.com' }, meta);
    await accounts.settled();
    await accounts.contact({ name: 'Ada', email: 'ada@example.com', message: 'A message long enough.' }, meta);
    await accounts.deleteAccount({ password: 'battery staple' }, signedIn);
    await expect(accounts.me(signedIn)).rejects.toThrow();
  });
});
