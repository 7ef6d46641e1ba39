/**
 * The store contract: what the use cases rely on from every store adapter. Each adapter runs it
 * unchanged from its own tests, like Lucia's `testAdapter`. The cases run the core's own account
 * rules (`createAccountManager`) over the store, so every race the rules rely on the store for (its
 * units of work, its compare-and-sets, its unique address) is proven on each store; the port's
 * members are checked one by one besides. Every write is observed: through the store where it reads
 * it back, else (contact messages) through the test-only inspection that `open` provides.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccountManager, type AccountManager, type Store } from '@sl-accounts/service/core';
import { accountChangeCases, resetCases, sessionListCases } from './cases/account-life.ts';
import { activityCases } from './cases/activity.ts';
import { contactCases } from './cases/contacts.ts';
import { credentialCases } from './cases/credentials.ts';
import { emailCases } from './cases/email.ts';
import { noticeCases } from './cases/notices.ts';
import { outboxCases } from './cases/outbox.ts';
import { passkeyCases } from './cases/passkeys.ts';
import { identityCases } from './cases/identities.ts';
import { deviceKeyCases } from './cases/device-keys.ts';
import { rateLimiterCases } from './cases/rate-limiter.ts';
import { roundTripCases } from './cases/round-trip.ts';
import { secondFactorCases } from './cases/second-factors.ts';
import { sessionCases } from './cases/sessions.ts';
import { unitOfWorkCases } from './cases/units-of-work.ts';
import { userCases } from './cases/users.ts';
import type { CurrentStore, StoreInspection } from './current-store.ts';
import type { TestStore } from './test-stores.ts';

/** A fresh store for one case, with its inspection. */
export interface StoreUnderTest {
  readonly store: Store;
  readonly inspect: StoreInspection;
  /** Closes the store and removes whatever it kept (its database, its directory). */
  close(): Promise<void>;
}

/** Opens a fresh, empty, ready (migrated) store. Called before each case; closed after it. */
export type OpenStore = () => Promise<StoreUnderTest>;

/**
 * Registers the contract for one store. `name` is a title, or a TestStore from `testStore`, whose
 * title and skip reason the suite then carries: a store that does not run shows as skipped, with why.
 */
export function testStoreContract(name: string | TestStore, open: OpenStore): void {
  const { title, skip } = typeof name === 'string' ? { title: name, skip: undefined } : name;
  describe.skipIf(skip !== undefined)(`store contract: ${title}`, () => {
    let opened: StoreUnderTest | undefined;
    let accounts: AccountManager | undefined;
    beforeEach(async () => {
      opened = await open();
      accounts = createAccountManager(opened.store);
    });
    afterEach(async () => {
      await opened?.close();
      opened = undefined;
      accounts = undefined;
    });

    const running = (): StoreUnderTest => {
      if (!opened) throw new Error('the store is open only while a case runs');
      return opened;
    };
    const current: CurrentStore = {
      get store() {
        return running().store;
      },
      get accounts() {
        running();
        return accounts!;
      },
      get inspect() {
        return running().inspect;
      },
    };

    it('ping resolves', async () => {
      await expect(current.store.ping()).resolves.toBeUndefined();
    });

    describe('users', () => userCases(current));
    describe('sessions', () => sessionCases(current));
    describe('listing and ending sessions', () => sessionListCases(current));
    describe('password change and account deletion', () => accountChangeCases(current));
    describe('password reset tokens', () => resetCases(current));
    describe('the credential generation', () => credentialCases(current));
    describe('verification and change-of-address tokens, and the name', () => emailCases(current));
    describe('contacts', () => contactCases(current));
    describe('rate limiter', () => rateLimiterCases(current));
    describe('mail outbox', () => outboxCases(current));
    describe('security notices queued with their change', () => noticeCases(current));
    describe('device keys', () => deviceKeyCases(current));
    describe('passkeys and WebAuthn challenges', () => passkeyCases(current));
    describe('identities at identity providers', () => identityCases(current));
    describe('every string comes back exactly as given', () => roundTripCases(current));
    describe('units of work and the members the rules build on', () => unitOfWorkCases(current));
    describe('second factors: TOTP, recovery codes, login challenges, step-ups', () => secondFactorCases(current));
    describe('the activity log, the account lock and the directory', () => activityCases(current));
  });
}
