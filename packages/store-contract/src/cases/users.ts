import { expect, it } from 'vitest';
import type { CurrentStore } from '../current-store.ts';
import { addUser, G0, OTHER_PHC, PHC, T0 } from '../fixtures.ts';

export function userCases(current: CurrentStore): void {
  it('insert returns the user without its hash; findByEmail returns it with the hash', async () => {
    const { store, accounts } = current;
    const user = await accounts.signUp({ name: 'Ada Lovelace', email: 'ada@example.com', passwordHash: PHC, createdAt: T0 });
    expect(user).toEqual({ id: expect.any(Number), name: 'Ada Lovelace', email: 'ada@example.com', emailVerified: false });
    expect(Number.isSafeInteger(user!.id)).toBe(true);
    expect(await store.users.findByEmail('ada@example.com')).toEqual({ ...user, passwordHash: PHC, credentialGeneration: G0 });
  });

  it('findByEmail of an unknown e-mail is null', async () => {
    const { store, accounts } = current;
    await addUser(accounts, 'ada@example.com');
    expect(await store.users.findByEmail('grace@example.com')).toBeNull();
  });

  it('gives each user its own id', async () => {
    const { store, accounts } = current;
    const a = await addUser(accounts, 'a@example.com');
    const b = await addUser(accounts, 'b@example.com');
    expect(a.id).not.toBe(b.id);
    expect((await store.users.findByEmail('b@example.com'))?.id).toBe(b.id);
  });

  it('insert of a taken e-mail returns null and leaves the first user as it was', async () => {
    const { store, accounts } = current;
    const first = await addUser(accounts, 'ada@example.com', 'Ada');
    expect(await accounts.signUp({ name: 'Impostor', email: 'ada@example.com', passwordHash: OTHER_PHC, createdAt: T0 })).toBeNull();
    expect(await store.users.findByEmail('ada@example.com')).toEqual({ ...first, passwordHash: PHC, credentialGeneration: G0 });
  });

  it('50 concurrent inserts of one e-mail create exactly one user', async () => {
    const { store, accounts } = current;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        accounts.signUp({ name: `Racer ${i}`, email: 'race@example.com', passwordHash: PHC, createdAt: T0 }),
      ),
    );
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    expect(await store.users.findByEmail('race@example.com')).toEqual({ ...winners[0], passwordHash: PHC, credentialGeneration: G0 });
  });

  it('updatePasswordHash replaces the hash of that user only', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await addUser(accounts, 'grace@example.com');
    expect(await accounts.replaceHash(ada.id, G0, OTHER_PHC)).toBe(true);
    expect((await store.users.findByEmail('ada@example.com'))?.passwordHash).toBe(OTHER_PHC);
    expect((await store.users.findByEmail('grace@example.com'))?.passwordHash).toBe(PHC);
  });

  it('updatePasswordHash of an unknown id changes nothing and does not throw', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await expect(accounts.replaceHash(ada.id + 1000, G0, OTHER_PHC)).resolves.toBe(false);
    expect((await store.users.findByEmail('ada@example.com'))?.passwordHash).toBe(PHC);
  });
}
