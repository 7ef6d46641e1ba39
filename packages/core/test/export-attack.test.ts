/**
 * The owner's export attacked (issue 43 review, branch i4x-attack): the contact form takes any
 * address, and signup takes an address before its owner proved it, so the export carries the
 * contact messages of the account's address only once that address is verified. Otherwise a
 * stranger signs up with someone's address and reads what that person wrote to the site.
 */
import { describe, expect, it } from 'vitest';
import { createAccounts, createAdmin, randomTokens } from '@sl-accounts/service/core';
import { ManualClock, signedInAtOnce, testHasher } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

const META = { clientIp: '203.0.113.7', userAgent: 'test-agent' };

describe("the owner's export under attack", () => {
  it("carries no contact message of an address the account has not verified (someone else's words)", async () => {
    const store = createMemoryStore();
    const ports = { store, hasher: testHasher, clock: new ManualClock(), tokens: randomTokens };
    const accounts = createAccounts(ports, { newDeviceNoticeLimit: null });
    const admin = createAdmin(ports);
    // The person writes to the site; they have no account.
    await accounts.contact({ name: 'Victim Person', email: 'victim@example.com', message: 'A private message about my bill' }, { clientIp: '198.51.100.5', userAgent: 'victim-agent' });
    // A stranger signs up with their address (not verified) and exports.
    const mallory = signedInAtOnce(await accounts.signup({ name: 'Mallory', email: 'victim@example.com', password: 'mallory password 1' }, META));
    const exported = await accounts.exportMyAccount({ sessionToken: mallory.session.token, ...META });
    expect(exported.contactMessages).toEqual([]);
    expect(JSON.stringify(exported)).not.toContain('private message');
    expect(JSON.stringify(await admin.exportAccount(mallory.user.id, { operator: 'alice' }))).not.toContain('private message');
    // Once the address is proved the account's, its messages are the owner's own.
    await store.users.update(mallory.user.id, { emailVerified: true });
    const verified = await accounts.exportMyAccount({ sessionToken: mallory.session.token, ...META });
    expect(verified.contactMessages.map((m) => m.message)).toEqual(['A private message about my bill']);
  });
});

describe('the export and the activity log', () => {
  it('a flood of exports from one client grows the log by one counted event per hour, not one row each; another client is its own event', async () => {
    const store = createMemoryStore();
    const ports = { store, hasher: testHasher, clock: new ManualClock(), tokens: randomTokens };
    const accounts = createAccounts(ports, { newDeviceNoticeLimit: null });
    const ada = signedInAtOnce(await accounts.signup({ name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' }, META));
    for (let i = 0; i < 30; i++) await accounts.exportMyAccount({ sessionToken: ada.session.token, ...META });
    await accounts.exportMyAccount({ sessionToken: ada.session.token, clientIp: '198.51.100.77', userAgent: 'other-agent' });
    const exports = (await store.activity.list({ userId: ada.user.id, limit: 100 })).filter((e) => e.type === 'account-exported');
    expect(exports.map((e) => [e.clientIp, e.count])).toEqual([
      ['198.51.100.77', 1],
      ['203.0.113.7', 30],
    ]);
  });
});
