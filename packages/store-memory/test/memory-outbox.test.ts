import { describe, expect, it } from 'vitest';
import type { DroppedMail, MailKind } from '@sl-accounts/service/core';
import { createMemoryStore, DEFAULT_OUTBOX_CAPACITY, MemoryOutbox } from '@sl-accounts/store-memory';

const mail = (n: number, kind?: MailKind) => ({ to: 'ops@example.net', subject: `mail ${n}`, text: 'text', ...(kind ? { kind } : {}) });

describe('MemoryOutbox', () => {
  it('keeps at most its capacity of unsent mails: past it the oldest go, and are counted', async () => {
    const outbox = new MemoryOutbox({ capacity: 3 });
    for (let n = 1; n <= 5; n++) outbox.enqueue(mail(n), new Date(n));
    expect(await outbox.depth()).toBe(3);
    expect(outbox.dropped).toBe(2);
    const claimed = await outbox.claim(new Date(10), { limit: 10, leaseMs: 1_000 });
    expect(claimed.map((m) => m.subject)).toEqual(['mail 3', 'mail 4', 'mail 5']);
  });

  it('bounds each kind on its own: 1,100 contact mails leave a security mail queued before them, and each one let go is told', async () => {
    const outbox = new MemoryOutbox();
    const told: DroppedMail[] = [];
    const unsubscribe = outbox.onDropped((m) => told.push(m));
    outbox.enqueue({ ...mail(0), subject: 'Reset your password' }, new Date(0));
    for (let n = 1; n <= 1_100; n++) outbox.enqueue(mail(n, 'contact'), new Date(n));
    expect(await outbox.depth()).toBe(DEFAULT_OUTBOX_CAPACITY + 1);
    expect(outbox.droppedByKind).toEqual({ contact: 100, unverified: 0, security: 0 });
    expect(told).toHaveLength(100);
    expect(told[0]).toEqual({ id: expect.any(String), kind: 'contact', createdAt: new Date(1), droppedOfKind: 1 });
    expect(told.at(-1)).toMatchObject({ kind: 'contact', createdAt: new Date(100), droppedOfKind: 100 });
    const claimed = await outbox.claim(new Date(2_000), { limit: 2_000, leaseMs: 1_000 });
    expect(claimed[0]).toMatchObject({ subject: 'Reset your password', kind: 'security' });
    expect(claimed[1]).toMatchObject({ subject: 'mail 101', kind: 'contact' });
    unsubscribe();
    for (let n = 0; n <= DEFAULT_OUTBOX_CAPACITY; n++) outbox.enqueue(mail(n, 'security'), new Date(3_000));
    expect(outbox.droppedByKind).toEqual({ contact: 100, unverified: 0, security: 2 });
    expect(told).toHaveLength(100);
  });

  it('three lanes: under a flood contact mail goes first, then unverified mail; the security mail of existing accounts stays, and is claimed first', async () => {
    const outbox = new MemoryOutbox({ capacity: 10 });
    outbox.enqueue({ ...mail(0), subject: 'Reset your password' }, new Date(0));
    outbox.enqueue({ ...mail(0, 'unverified'), subject: 'Confirm (before the flood)' }, new Date(0));
    for (let n = 1; n <= 25; n++) outbox.enqueue(mail(n, 'unverified'), new Date(n));
    for (let n = 1; n <= 15; n++) outbox.enqueue(mail(n, 'contact'), new Date(n));
    expect(outbox.droppedByKind).toEqual({ contact: 5, unverified: 16, security: 0 });
    expect(await outbox.depth()).toBe(21);
    const claimed = await outbox.claim(new Date(100), { limit: 1, leaseMs: 1_000 });
    expect(claimed.map((m) => [m.subject, m.kind])).toEqual([['Reset your password', 'security']]);
    const rest = await outbox.claim(new Date(100), { limit: 100, leaseMs: 1_000 });
    expect(rest.filter((m) => m.kind === 'unverified').map((m) => m.subject)).toEqual(Array.from({ length: 10 }, (_, i) => `mail ${i + 16}`));
    expect(rest.filter((m) => m.kind === 'contact').map((m) => m.subject)).toEqual(Array.from({ length: 10 }, (_, i) => `mail ${i + 6}`));
  });

  it('a stand-in is no mail: never claimed, not in the depth, removed once due by deleteStandIns, and bounded', async () => {
    const outbox = new MemoryOutbox({ capacity: 5 });
    for (let n = 0; n < 8; n++) await outbox.add({ to: null, subject: 'Reset', text: 'link', queuedAt: new Date(n) });
    expect(outbox.standIns).toBe(5);
    expect(await outbox.depth()).toBe(0);
    expect(outbox.dropped).toBe(0);
    expect(await outbox.claim(new Date(7), { limit: 10, leaseMs: 1_000 })).toEqual([]);
    expect(outbox.deleteStandIns(new Date(6))).toBe(4);
    expect(outbox.standIns).toBe(1);
    expect(outbox.deleteStandIns(new Date(7))).toBe(1);
    expect(outbox.standIns).toBe(0);
  });

  it('createMemoryStore passes outboxCapacity on; the default is 1000', () => {
    expect(createMemoryStore({ outboxCapacity: 7 }).outbox.capacity).toBe(7);
    expect(createMemoryStore().outbox.capacity).toBe(DEFAULT_OUTBOX_CAPACITY);
    expect(DEFAULT_OUTBOX_CAPACITY).toBe(1_000);
  });
});
