import { describe, expect, it } from 'vitest';
import { createMemoryStore, DEFAULT_CONTACT_BYTE_CAPACITY, MemoryContactStore } from '@sl-accounts/store-memory';

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

  it('createMemoryStore passes contactCapacity and contactByteCapacity on', async () => {
    const { contacts } = createMemoryStore({ contactCapacity: 1 });
    await contacts.add(message(1));
    await contacts.add(message(2));
    expect(contacts.messages.map((m) => m.name)).toEqual(['n2']);
    const bytes = createMemoryStore({ contactByteCapacity: 1234 }).contacts;
    expect(bytes.byteCapacity).toBe(1234);
  });

  it('keeps the most recent messages within its byte capacity, and always the newest', async () => {
    const big = (n: number) => ({ ...message(n), message: 'x'.repeat(1_000) });
    const store = new MemoryContactStore({ byteCapacity: 3_000 });
    for (let n = 1; n <= 5; n++) await store.add(big(n));
    // Each takes a little over 1,000 bytes: two fit, a third does not.
    expect(store.messages.map((m) => m.name)).toEqual(['n4', 'n5']);
    expect(store.dropped).toBe(3);
    expect(store.bytes).toBeLessThanOrEqual(3_000);
    await store.add({ ...message(6), message: 'y'.repeat(10_000) });
    expect(store.messages.map((m) => m.name)).toEqual(['n6']);
    expect(store.dropped).toBe(5);
  });

  it('counts a message by the bytes its text takes, so large ones are kept in proportion', async () => {
    const store = new MemoryContactStore();
    // The largest the API accepts: 5,000 astral code points, a 120-character astral name, a 200-
    // character e-mail and a user agent near Node's 16 KiB header limit.
    const largest = (n: number) => ({
      name: '😀'.repeat(120),
      email: `${String(n).padStart(6, '0')}${'a'.repeat(58)}@${'b'.repeat(135)}`,
      message: '😀'.repeat(5_000),
      clientIp: `10.0.${n >> 8}.${n & 255}`,
      userAgent: 'U'.repeat(15_800),
      receivedAt: new Date(n),
    });
    // ~36.6 KB each: about 900 fit in 32 MiB, so 1,000 are enough to reach the bound.
    const added = 1_000;
    for (let n = 1; n <= added; n++) await store.add(largest(n));
    expect(store.bytes).toBeLessThanOrEqual(DEFAULT_CONTACT_BYTE_CAPACITY);
    const kept = store.messages;
    expect(kept.length).toBeGreaterThan(850);
    expect(kept.length).toBeLessThan(950);
    expect(store.dropped + kept.length).toBe(added);
    expect(kept.at(-1)).toEqual(largest(added));
  });

  it('gives back exactly what it was given: any string, a missing user agent, the time to the millisecond', async () => {
    const store = new MemoryContactStore();
    const odd = { name: 'a\u0000b', email: 'é@example.com', message: 'lone \ud800 and \udfff, pair 😀, quote " and \\', clientIp: '::1', userAgent: null, receivedAt: new Date(1_234_567_890_123) };
    await store.add(odd);
    expect(store.messages).toEqual([odd]);
  });
});
