import { expect, it } from 'vitest';
import type { ContactMessage } from '@sl-accounts/service/core';
import type { CurrentStore } from '../current-store.ts';
import { at, T0 } from '../fixtures.ts';

/** No port reads a contact message back, so every case checks what was stored through the inspection. */
export function contactCases(current: CurrentStore): void {
  it('a fresh store holds no messages', async () => {
    expect(await current.inspect.contactMessages()).toEqual([]);
  });

  it('add stores a message, with or without a user agent', async () => {
    const { accounts, inspect } = current;
    const message = { name: 'Ada', email: 'ada@example.com', message: 'Hello there, a question.', clientIp: '203.0.113.7', receivedAt: T0 };
    await expect(accounts.addContact({ ...message, userAgent: 'curl/8.5.0' }, null)).resolves.toBeUndefined();
    await expect(accounts.addContact({ ...message, userAgent: null, clientIp: '2001:db8::1' }, null)).resolves.toBeUndefined();
    expect(await inspect.contactMessages()).toStrictEqual([
      { ...message, userAgent: 'curl/8.5.0' },
      { ...message, userAgent: null, clientIp: '2001:db8::1' },
    ]);
  });

  it('add takes long and non-ASCII text as given', async () => {
    const { accounts, inspect } = current;
    const message: ContactMessage = {
      name: 'Zoë Ω',
      email: 'zoe@example.com',
      message: `${'Grüße 👋 '.repeat(500)}`.slice(0, 5000),
      clientIp: '::ffff:127.0.0.1',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) "quoted"; \\ backslash',
      receivedAt: T0,
    };
    await expect(accounts.addContact(message, null)).resolves.toBeUndefined();
    expect(await inspect.contactMessages()).toStrictEqual([message]);
  });

  it('keeps every message: repeated ones, and many added at once', async () => {
    const { accounts, inspect } = current;
    const message = (n: number): ContactMessage => ({
      name: `Sender ${n}`,
      email: `sender${n}@example.com`,
      message: `Message number ${n}`,
      clientIp: '192.0.2.1',
      userAgent: null,
      receivedAt: at(n),
    });
    await accounts.addContact(message(0), null);
    await accounts.addContact(message(0), null);
    await Promise.all(Array.from({ length: 20 }, (_, i) => accounts.addContact(message(i + 1), null)));
    const stored = await inspect.contactMessages();
    expect(stored.slice(0, 2)).toStrictEqual([message(0), message(0)]);
    // Concurrent adds may land in any order.
    const byName = (a: ContactMessage, b: ContactMessage) => a.name.localeCompare(b.name);
    expect([...stored.slice(2)].sort(byName)).toStrictEqual(Array.from({ length: 20 }, (_, i) => message(i + 1)).sort(byName));
  });
}
