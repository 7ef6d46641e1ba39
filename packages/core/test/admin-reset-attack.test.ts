/**
 * The operator's reset link attacked (issue 43 review, branch i4x-attack): the operator's request
 * counted against the public per-client limit of reset requests, keyed on the operator's address
 * (the admin API's socket; '' for the CLI). Ten resets of ten accounts in an hour, or strangers'
 * requests from the same address, left the operator unable to mail any owner a link for an hour.
 * The inbox's own bound per address still holds.
 */
import { describe, expect, it } from 'vitest';
import { createAccounts, createAdmin, randomTokens, RateLimited } from '@sl-accounts/service/core';
import { ManualClock, testHasher } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

const OPERATOR = { operator: 'alice', clientIp: '127.0.0.1' };

describe("the operator's reset link", () => {
  it('is not held back by the public per-client limit of its address; the per-inbox bound still holds', async () => {
    const store = createMemoryStore();
    const ports = { store, hasher: testHasher, clock: new ManualClock(), tokens: randomTokens };
    const accounts = createAccounts(ports, { newDeviceNoticeLimit: null });
    const admin = createAdmin(ports);
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push((await accounts.signup({ name: `P${i}`, email: `p${i}@example.com`, password: 'a good password' }, { clientIp: `203.0.113.${i + 1}` })).user.id);
    // Strangers at the operator's address spend that address's public budget.
    for (let i = 0; i < 12; i++) await accounts.requestPasswordReset({ email: `nobody${i}@example.com` }, { clientIp: '127.0.0.1' }).catch(() => {});
    for (const id of ids) await expect(admin.sendPasswordReset(id, {}, OPERATOR)).resolves.toEqual({ sent: true });
    // One inbox is still bounded, whoever asks.
    let refused = false;
    for (let i = 0; i < 10 && !refused; i++) refused = await admin.sendPasswordReset(ids[0]!, {}, OPERATOR).then(() => false, (error: unknown) => error instanceof RateLimited);
    expect(refused).toBe(true);
  });
});
