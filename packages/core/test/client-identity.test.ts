/**
 * Which client a limited operation counts: every spelling of one address is one client, an IPv6
 * network is one client, and what is not an address never opens a bucket of its own.
 */
import { describe, expect, it } from 'vitest';
import { Pbkdf2PasswordHasher, RateLimited, ValidationError, createAccounts, randomTokens, type AccountsOptions } from '@sl-accounts/service/core';
import { ManualClock } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

function setup(options: AccountsOptions = {}) {
  const store = createMemoryStore();
  const accounts = createAccounts({ store, hasher: new Pbkdf2PasswordHasher({ iterations: 1 }), clock: new ManualClock(), tokens: randomTokens }, options);
  return { store, accounts };
}
const CONTACT = { name: 'Ada', email: 'ada@example.com', message: 'Hello there, a question.' };
const contactFrom = (accounts: ReturnType<typeof setup>['accounts'], clientIp: string) => accounts.contact(CONTACT, { clientIp }).then(() => 200, (e: unknown) => (e instanceof RateLimited ? 429 : e));

describe('client identity for the rate limits', () => {
  it('every spelling of one address shares its bucket', async () => {
    const { accounts } = setup();
    for (let i = 0; i < 5; i++) expect(await contactFrom(accounts, '5.5.5.5')).toBe(200);
    for (const spelling of ['5.5.5.5', '::ffff:5.5.5.5', '::FFFF:5.5.5.5', '0:0:0:0:0:ffff:505:505', '5.5.5.5:1234', '[::ffff:5.5.5.5]:80']) {
      expect(await contactFrom(accounts, spelling), spelling).toBe(429);
    }
    expect(await contactFrom(accounts, '5.5.5.6')).toBe(200);
  });

  it('IPv6 clients are counted by their /56: rotating through a /64 (or a /56) gains nothing', async () => {
    const { accounts } = setup();
    const statuses = [];
    for (let i = 1; i <= 12; i++) statuses.push(await contactFrom(accounts, `2001:db8:1:2::${i.toString(16)}`));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    expect(await contactFrom(accounts, '2001:db8:1:ff::1')).toBe(429);
    expect(await contactFrom(accounts, '2001:DB8:1:0002:0:0:0:1')).toBe(429);
    expect(await contactFrom(accounts, '2001:db8:1:100::1')).toBe(200); // the next /56
  });

  it('the IPv6 prefix is configurable, and checked', async () => {
    const { accounts } = setup({ ipv6Prefix: 64 });
    for (let i = 1; i <= 5; i++) expect(await contactFrom(accounts, `2001:db8:1:2::${i}`)).toBe(200);
    expect(await contactFrom(accounts, '2001:db8:1:2::99')).toBe(429);
    expect(await contactFrom(accounts, '2001:db8:1:3::1')).toBe(200);
    for (const ipv6Prefix of [0, 129, 56.5]) expect(() => setup({ ipv6Prefix })).toThrow(RangeError);
  });

  it('anything that is not an IP address is the one shared client "unknown", never a bucket of its own', async () => {
    const { accounts, store } = setup();
    const junk = ['not-an-ip', '<script>', 'x'.repeat(2700), '005.005.005.005', 'unknown'];
    for (const clientIp of junk) expect(await contactFrom(accounts, clientIp)).toBe(200);
    expect(await contactFrom(accounts, 'another-non-address')).toBe(429);
    expect(store.contacts.messages.map((m) => m.clientIp)).toEqual(['unknown', 'unknown', 'unknown', 'unknown', 'unknown']);
  });

  it('a contact message stores the canonical address, not the limiter key', async () => {
    const { accounts, store } = setup();
    await accounts.contact(CONTACT, { clientIp: '2001:0DB8:0:0:1::7' });
    await accounts.contact(CONTACT, { clientIp: '::ffff:192.0.2.9' });
    expect(store.contacts.messages.map((m) => m.clientIp)).toEqual(['2001:db8::1:0:0:7', '192.0.2.9']);
  });

  it('login and signup key clients the same way', async () => {
    const { accounts } = setup({ rateLimits: { login: { limit: 1, windowMs: 60_000 }, signup: { limit: 1, windowMs: 60_000 } } });
    for (const op of ['login', 'signup'] as const) {
      await expect(accounts[op]({}, { clientIp: '2001:db8:1:2::1' })).rejects.toBeInstanceOf(ValidationError);
      await expect(accounts[op]({}, { clientIp: '2001:db8:1:2::2' })).rejects.toBeInstanceOf(RateLimited);
    }
  });
});
