import { expect, it } from 'vitest';
import type { CurrentStore } from '../current-store.ts';
import { addUser, G0, OTHER_PHC, PHC, T0 } from '../fixtures.ts';

export function userCases(current: CurrentStore): void {
  it('insert returns the user without its hash; findByEmail returns it with the hash', async () => {
    const { store } = current;
    const user = await store.users.insert({ name: 'Ada Lovelace', email: 'ada@example.com', passwordHash: PHC, createdAt: T0 });
    expect(user).toEqual({ id: expect.any(Number), name: 'Ada Lovelace', email: 'ada@example.com', emailVerified: false });
    expect(Number.isSafeInteger(user!.id)).toBe(true);
    expect(await store.users.findByEmail('ada@example.com')).toEqual({ ...user, passwordHash: PHC, credentialGeneration: G0 });
  });

  it('findByEmail of an unknown e-mail is null', async () => {
    const { store } = current;
    await addUser(store, 'ada@example.com');
    expect(await store.users.findByEmail('grace@example.com')).toBeNull();
  });

  it('gives each user its own id', async () => {
    const { store } = current;
    const a = await addUser(store, 'a@example.com');
    const b = await addUser(store, 'b@example.com');
    expect(a.id).not.toBe(b.id);
    expect((await store.users.findByEmail('b@example.com'))?.id).toBe(b.id);
  });

  it('insert of a taken e-mail returns null and leaves the first user as it was', async () => {
    const { store } = current;
    const first = await addUser(store, 'ada@example.com', 'Ada');
    expect(await store.users.insert({ name: 'Impostor', email: 'ada@example.com', passwordHash: OTHER_PHC, createdAt: T0 })).toBeNull();
    expect(await store.users.findByEmail('ada@example.com')).toEqual({ ...first, passwordHash: PHC, credentialGeneration: G0 });
  });

  it('50 concurrent inserts of one e-mail create exactly one user', async () => {
    const { store } = current;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.users.insert({ name: `Racer ${i}`, email: 'race@example.com', passwordHash: PHC, createdAt: T0 }),
      ),
    );
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    expect(await store.users.findByEmail('race@example.com')).toEqual({ ...winners[0], passwordHash: PHC, credentialGeneration: G0 });
  });

  it('updatePasswordHash replaces the hash of that user only', async () => {
    const { store } = current;
    const ada = await addUser(store, 'ada@example.com');
    await addUser(store, 'grace@example.com');
    expect(await store.users.updatePasswordHash(ada.id, G0, OTHER_PHC)).toBe(true);
    expect((await store.users.findByEmail('ada@example.com'))?.passwordHash).toBe(OTHER_PHC);
    expect((await store.users.findByEmail('grace@example.com'))?.passwordHash).toBe(PHC);
  });

  it('updatePasswordHash of an unknown id changes nothing and does not throw', async () => {
    const { store } = current;
    const ada = await addUser(store, 'ada@example.com');
    await expect(store.users.updatePasswordHash(ada.id + 1000, G0, OTHER_PHC)).resolves.toBe(false);
    expect((await store.users.findByEmail('ada@example.com'))?.passwordHash).toBe(PHC);
  });
}
