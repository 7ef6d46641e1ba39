import { expect, it } from 'vitest';
import type { CurrentStore } from '../current-store.ts';

const KEY_A = 'a'.repeat(43);
const KEY_B = 'b'.repeat(43);

export function deviceKeyCases(current: CurrentStore): void {
  it('getOrCreate stores the first candidate and returns it ever after', async () => {
    const { deviceKeys } = current.store;
    expect(await deviceKeys.getOrCreate(KEY_A)).toBe(KEY_A);
    expect(await deviceKeys.getOrCreate(KEY_B)).toBe(KEY_A);
  });

  it('of 10 concurrent first calls, all get one and the same key', async () => {
    const { deviceKeys } = current.store;
    const candidates = Array.from({ length: 10 }, (_, i) => String(i).repeat(43));
    const keys = await Promise.all(candidates.map((c) => deviceKeys.getOrCreate(c)));
    expect(new Set(keys).size).toBe(1);
    expect(candidates).toContain(keys[0]);
    expect(await deviceKeys.getOrCreate(KEY_B)).toBe(keys[0]);
  });
}
