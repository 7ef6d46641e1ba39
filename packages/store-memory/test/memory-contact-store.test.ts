import { describe, expect, it } from 'vitest';
import { MemoryContactStore } from '@sl/store-memory';

const message = (n: number) => ({ name: `n${n}`, email: 'a@example.com', message: 'hello there', clientIp: '192.0.2.1', userAgent: null, receivedAt: new Date(n) });

describe('MemoryContactStore', () => {
  it('keeps every message up to its capacity, then the most recent ones, and counts what it let go', async () => {
    const store = new MemoryContactStore({ capacity: 3 });
    for (let n = 1; n <= 3; n++) await store.add(message(n));
    expect(store.messages.map((m) => m.name)).toEqual(['n1', 'n2', 'n3']);
    expect(store.dropped).toBe(0);
    for (let n = 4; n <= 5; n++) await store.add(message(n));
    expect(store.messages.map((m) => m.name)).toEqual(['n3', 'n4', 'n5']);
    expect(store.dropped).toBe(2);
  });

  it('keeps 10000 by default', () => {
    expect(new MemoryContactStore().capacity).toBe(10_000);
  });
});
