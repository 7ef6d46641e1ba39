import { describe, expect, it } from 'vitest';
import { createMemoryStore, MemoryContactStore } from '@sl/store-memory';

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

  it('by default keeps 10000: the 10001st message lets the oldest go', async () => {
    const { contacts } = createMemoryStore();
    for (let n = 1; n <= 10_000; n++) await contacts.add(message(n));
    expect(contacts.messages).toHaveLength(10_000);
    expect(contacts.dropped).toBe(0);
    await contacts.add(message(10_001));
    expect(contacts.messages).toHaveLength(10_000);
    expect(contacts.messages[0]!.name).toBe('n2');
    expect(contacts.messages.at(-1)!.name).toBe('n10001');
    expect(contacts.dropped).toBe(1);
  });

  it('createMemoryStore passes contactCapacity on', async () => {
    const { contacts } = createMemoryStore({ contactCapacity: 1 });
    await contacts.add(message(1));
    await contacts.add(message(2));
    expect(contacts.messages.map((m) => m.name)).toEqual(['n2']);
  });
});
