import { describe, expect, it } from 'vitest';
import { createMemoryStore, DEFAULT_OUTBOX_CAPACITY, MemoryOutbox } from '@sl-accounts/store-memory';

const mail = (n: number) => ({ to: 'ops@example.net', subject: `mail ${n}`, text: 'text' });

describe('MemoryOutbox', () => {
  it('keeps at most its capacity of unsent mails: past it the oldest go, and are counted', async () => {
    const outbox = new MemoryOutbox({ capacity: 3 });
    for (let n = 1; n <= 5; n++) outbox.enqueue(mail(n), new Date(n));
    expect(await outbox.depth()).toBe(3);
    expect(outbox.dropped).toBe(2);
    const claimed = await outbox.claim(new Date(10), { limit: 10, leaseMs: 1_000 });
    expect(claimed.map((m) => m.subject)).toEqual(['mail 3', 'mail 4', 'mail 5']);
  });

  it('createMemoryStore passes outboxCapacity on; the default is 1000', () => {
    expect(createMemoryStore({ outboxCapacity: 7 }).outbox.capacity).toBe(7);
    expect(createMemoryStore().outbox.capacity).toBe(DEFAULT_OUTBOX_CAPACITY);
    expect(DEFAULT_OUTBOX_CAPACITY).toBe(1_000);
  });
});
