// @module-tag database
/**
 * An account's deletion racing the owner's requests, on PostgreSQL (READ COMMITTED, a real server),
 * where units of work run at once. Found by an attacker's review (2026-12-08), each a 500:
 *
 * - a request that read the account before the deletion committed, then stored a single-use token of
 *   it (a link's sign-in state, a passkey's challenge): the insert saw the user's row and the foreign
 *   key failed once the deletion committed. The put now inserts from the user's row under its share
 *   lock, so it waits for the deletion, stores nothing, and the request answers 401;
 * - a unit that took a token (a reset's, a verification's: its row locked) and then changed the
 *   account's row, against the deletion, which locks the account's row and then, by its cascade, the
 *   token's: a deadlock (40P01), one of the two rolled back. A take now locks the account's row before
 *   the token's, the deletion's order.
 *
 * Each case pauses one side at the point that matters and waits until the other is seen waiting on a
 * lock (pg_stat_activity), never on a fixed time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { digestToken } from '@sl-accounts/service/core';
import { testStore } from '@sl-accounts/store-contract';
import { createTestDatabase, locatePostgres, openMigratedTestStore, type PostgresTestStore } from '@sl-accounts/store-postgres/testing';
import { meta, ORIGIN, outcome, SECRETS, stubProvider } from '../../packages/core/test/support/interleaving.ts';
import { ADA, pausedPostgresWorld } from '../support/paused-postgres.ts';
import { poll } from '../support/poll.ts';

const postgres = await testStore('postgres', locatePostgres);
const OPERATOR = { operator: 'ops' };
const START = { redirectUri: 'http://localhost/api/sign-in/idp/callback', defaultReturnTo: '/' };
const HOUR = 60 * 60 * 1000;

describe.skipIf(postgres.skip)(`an account's deletion racing its owner's requests, on ${postgres.title}`, () => {
  let pg: PostgresTestStore | null = null;
  afterEach(async () => {
    await pg?.close();
    pg = null;
  });

  /** Ada signed up, the use cases over the pausable store, and what tells a waiting lock. */
  async function setup() {
    const idp = stubProvider();
    const world = await pausedPostgresWorld({ secrets: SECRETS, passkeyOrigin: ORIGIN, identityProviders: [idp.provider], securityNotices: false });
    const { db, paused, clock, accounts, admin, signedUp, lockWaits } = world;
    pg = db;
    /** A single-use token of Ada's, as the service mails it: its plain text. */
    const mailedToken = async (purpose: 'password-reset' | 'verify-email') => {
      const token = `${purpose}-token-of-ada`;
      const createdAt = clock.now();
      const slot = purpose === 'password-reset' ? `reset:${ADA.email}` : `email:${signedUp.user.id}`;
      const record = (await db.users.findById(signedUp.user.id))!;
      const put = { digest: digestToken(token), purpose, userId: record.id, credentialGeneration: record.credentialGeneration, email: ADA.email, data: null, failures: 0, createdAt, expiresAt: new Date(createdAt.getTime() + HOUR) } as const;
      expect(await db.oneTimeTokens.put(put, { slot })).toBe(true);
      return token;
    };
    return { db, paused, accounts, admin, userId: signedUp.user.id, session: signedUp.session.token, lockWaits, mailedToken };
  }

  /** The operator's deletion paused inside its unit right after it deleted the row (uncommitted, the row locked). */
  function pausedDeletion({ paused, admin, userId }: Awaited<ReturnType<typeof setup>>) {
    const pause = paused.pauseNextInUnit('users.delete', 'after');
    const deleting = outcome(admin.deleteAccount(userId, { reason: 'asked by the owner' }, OPERATOR));
    return { pause, deleting };
  }

  it('passkey registration options asked while the deletion commits: they wait for it, store no challenge, and answer 401 (no foreign-key error)', async () => {
    const world = await setup();
    const { pause, deleting } = pausedDeletion(world);
    await pause.arrived;
    const asking = outcome(world.accounts.passkeyRegistrationOptions({ password: ADA.password }, meta(world.session)));
    expect(await poll(world.lockWaits, (n) => n === 1, 10_000)).toBe(1);
    pause.release();
    expect((await deleting).ok).toBe(true);
    expect(await asking).toMatchObject({ ok: false, error: expect.stringContaining('Unauthenticated') });
    expect(await world.db.query('select digest from one_time_tokens')).toEqual([]);
  });

  it('a start of linking while the deletion commits: it waits for it, keeps no state, and answers 401 (no foreign-key error)', async () => {
    const world = await setup();
    const { pause, deleting } = pausedDeletion(world);
    await pause.arrived;
    const starting = outcome(world.accounts.startIdentityLink('idp', { password: ADA.password }, { ...meta(world.session), ...START }));
    expect(await poll(world.lockWaits, (n) => n === 1, 10_000)).toBe(1);
    pause.release();
    expect((await deleting).ok).toBe(true);
    expect(await starting).toMatchObject({ ok: false, error: expect.stringContaining('Unauthenticated') });
    expect(await world.db.query('select digest from one_time_tokens')).toEqual([]);
  });

  for (const purpose of ['password-reset', 'verify-email'] as const) {
    it(`a ${purpose} confirmation paused after it took its token while the operator deletes the account: no deadlock, the confirmation commits, then the account goes`, async () => {
      const world = await setup();
      const token = await world.mailedToken(purpose);
      const pause = world.paused.pauseNextInUnit('oneTimeTokens.take', 'after');
      const confirming = outcome<unknown>(
        purpose === 'password-reset' ? world.accounts.confirmPasswordReset({ token, newPassword: 'a brand new passphrase 42' }, meta()) : world.accounts.confirmEmail({ token }, meta(world.session)),
      );
      await pause.arrived;
      const deleting = outcome(world.admin.deleteAccount(world.userId, { reason: 'asked by the owner' }, OPERATOR));
      // The deletion waits on a lock the confirmation holds (the account's row; before the fix, the token's).
      expect(await poll(world.lockWaits, (n) => n === 1, 10_000)).toBe(1);
      pause.release();
      // Both answer (before the fix, one of them was rolled back with "deadlock detected": a 500).
      expect((await Promise.all([confirming, deleting])).filter((o) => !o.ok)).toEqual([]);
      expect(await world.db.query('select id from users')).toEqual([]);
    });
  }
});

describe.skipIf(postgres.skip)(`a unit of work rolled back as a deadlock's victim runs again, on ${postgres.title}`, () => {
  let pg: PostgresTestStore | null = null;
  afterEach(async () => {
    await pg?.close();
    pg = null;
  });

  it('two units that lock two accounts in opposite orders both commit: the victim of the deadlock (40P01) ran again, once', async () => {
    pg = await openMigratedTestStore(await createTestDatabase());
    const db = pg;
    const createdAt = new Date('2031-03-01T12:00:00Z');
    const hash = '$pbkdf2-sha256$i=1000$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
    const ada = (await db.users.insert({ name: 'Ada', email: 'ada@example.com', passwordHash: hash, createdAt }))!;
    const bob = (await db.users.insert({ name: 'Bob', email: 'bob@example.com', passwordHash: hash, createdAt }))!;
    // Each unit locks its first account's row, and goes on to the other's only once both hold their first:
    // a deadlock every run, whichever PostgreSQL picks as its victim (no timing involved).
    let adaLocked!: () => void;
    let bobLocked!: () => void;
    const adaHeld = new Promise<void>((resolve) => (adaLocked = resolve));
    const bobHeld = new Promise<void>((resolve) => (bobLocked = resolve));
    let runs = 0;
    const first = db.transaction(async (tx) => {
      runs++;
      await tx.users.update(ada.id, { name: 'Ada (first)' });
      adaLocked();
      await bobHeld;
      await tx.users.update(bob.id, { name: 'Bob (first)' });
      return 'first';
    });
    const second = db.transaction(async (tx) => {
      runs++;
      await tx.users.update(bob.id, { name: 'Bob (second)' });
      bobLocked();
      await adaHeld;
      await tx.users.update(ada.id, { name: 'Ada (second)' });
      return 'second';
    });
    expect(await Promise.all([outcome(first), outcome(second)])).toEqual([
      { ok: true, value: 'first' },
      { ok: true, value: 'second' },
    ]);
    expect(runs).toBe(3);
    // The one that ran again committed last: both accounts carry its names.
    const names = [(await db.users.findById(ada.id))!.name, (await db.users.findById(bob.id))!.name];
    expect([['Ada (first)', 'Bob (first)'], ['Ada (second)', 'Bob (second)']]).toContainEqual(names);
  });
});
