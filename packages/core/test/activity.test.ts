/**
 * The activity log, the account lock and the operator's use cases (issue 43) over the memory store:
 * events written with their change, failed sign-ins summarised per hour, the lock refusing every way
 * in (a right password 403, a wrong one as any wrong one), the owner's page and export, retention.
 */
import { describe, expect, it } from 'vitest';
import { AccountLocked, createAccounts, createAdmin, InvalidCredentials, NotFound, randomTokens, SecondFactorRequired, Unauthenticated, ValidationError } from '@sl-accounts/service/core';
import { ManualClock, signedInAtOnce, testHasher } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };
const META = { clientIp: '203.0.113.7', userAgent: 'test-agent' };
const OPERATOR = { operator: 'alice', clientIp: '198.51.100.1' };

function setup(options: { activityRetentionDays?: number } = {}) {
  const store = createMemoryStore();
  const clock = new ManualClock();
  const ports = { store, hasher: testHasher, clock, tokens: randomTokens };
  const accounts = createAccounts(ports, { ...options, newDeviceNoticeLimit: null });
  const admin = createAdmin(ports, options);
  const live = (token: string) => accounts.me({ sessionToken: token }).then(() => 'live', (error: unknown) => (error instanceof Unauthenticated ? 'ended' : Promise.reject(error)));
  return { store, clock, accounts, admin, live };
}

async function signUp(accounts: ReturnType<typeof setup>['accounts']) {
  const signed = signedInAtOnce(await accounts.signup(ADA, META));
  return { userId: signed.user.id, token: signed.session.token };
}

describe('the activity log', () => {
  it('records the signup and every sign-in with method, address and user agent, newest first; never a token', async () => {
    const { accounts } = setup();
    const { token } = await signUp(accounts);
    const login = signedInAtOnce(await accounts.login({ email: ADA.email, password: ADA.password }, META));
    const page = await accounts.myActivity(null, { sessionToken: login.session.token });
    expect(page.events.map((e) => [e.type, e.details.method ?? null])).toEqual([
      ['signed-in', 'password'],
      ['signed-in', 'signup'],
      ['account-created', null],
    ]);
    expect(page.events[0]).toMatchObject({ clientIp: '203.0.113.7', userAgent: 'test-agent', actor: null, count: 1 });
    expect(page.nextCursor).toBeNull();
    expect(JSON.stringify(page)).not.toContain(token);
    expect(JSON.stringify(page)).not.toContain(ADA.password);
  });

  it("records the owner's own changes, each with its change: name, sessions ended, password, deletion", async () => {
    const { accounts, store } = setup();
    const { userId, token } = await signUp(accounts);
    const other = signedInAtOnce(await accounts.login({ email: ADA.email, password: ADA.password }, META));
    await accounts.updateProfile({ name: 'Ada L.' }, { ...META, sessionToken: token });
    const listed = await accounts.listSessions({ sessionToken: token });
    await accounts.endSession(listed.find((s) => !s.current)!.id, { ...META, sessionToken: token });
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: 'a new good password' }, { ...META, sessionToken: token });
    await accounts.deleteAccount({ password: 'a new good password' }, { ...META, sessionToken: token });
    void other;
    const types = (await store.activity.list({ userId, limit: 20 })).map((e) => e.type);
    expect(types).toEqual(['account-deleted', 'password-changed', 'sessions-ended', 'name-changed', 'signed-in', 'signed-in', 'account-created']);
    const text = JSON.stringify(await store.activity.list({ userId, limit: 20 }));
    for (const secret of [ADA.password, 'a new good password', token, other.session.token]) expect(text).not.toContain(secret);
  });

  it('summarises failed sign-ins as one counted event per account and hour', async () => {
    const { accounts, clock, store } = setup();
    const { userId } = await signUp(accounts);
    for (let i = 0; i < 3; i++) await expect(accounts.login({ email: ADA.email, password: 'wrong password!' }, META)).rejects.toBeInstanceOf(InvalidCredentials);
    clock.advance(60 * 60_000);
    await expect(accounts.login({ email: ADA.email, password: 'wrong password!' }, META)).rejects.toBeInstanceOf(InvalidCredentials);
    const failed = await store.activity.list({ userId, type: 'sign-in-failed', limit: 10 });
    expect(failed.map((e) => e.count)).toEqual([1, 3]);
    // An address that is nobody's costs the same statement: counted on the hour's one row of such failures.
    await expect(accounts.login({ email: 'nobody@example.com', password: 'wrong password!' }, META)).rejects.toBeInstanceOf(InvalidCredentials);
    await expect(accounts.login({ email: 'nobody2@example.com', password: 'wrong password!' }, META)).rejects.toBeInstanceOf(InvalidCredentials);
    const all = await store.activity.list({ type: 'sign-in-failed', limit: 10 });
    expect(all.map((e) => [e.userId, e.count])).toEqual([[null, 2], [userId, 1], [userId, 3]]);
  });

  it('pages with the cursor, and refuses a cursor it did not give', async () => {
    const { accounts, store } = setup();
    const { userId, token } = await signUp(accounts);
    for (let i = 0; i < 60; i++) await store.activity.append({ userId, type: 'name-changed', at: new Date(), clientIp: null, userAgent: null, actor: null, details: {} });
    const first = await accounts.myActivity(undefined, { sessionToken: token });
    expect(first.events).toHaveLength(50);
    const second = await accounts.myActivity(first.nextCursor, { sessionToken: token });
    expect(second.events).toHaveLength(12);
    expect(second.nextCursor).toBeNull();
    expect(Number(second.events[0]!.id)).toBeLessThan(Number(first.events.at(-1)!.id));
    await expect(accounts.myActivity('abc', { sessionToken: token })).rejects.toBeInstanceOf(ValidationError);
  });

  it('an event of a change that rolled back is not kept', async () => {
    const { store } = setup();
    await expect(
      store.transaction(async (tx) => {
        await tx.activity.append({ userId: 1, type: 'name-changed', at: new Date(), clientIp: null, userAgent: null, actor: null, details: {} });
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');
    expect(await store.activity.list({ limit: 10 })).toEqual([]);
  });

  it('the sweep deletes events older than ACTIVITY_RETENTION_DAYS', async () => {
    const { accounts, clock, store } = setup({ activityRetentionDays: 2 });
    const { userId } = await signUp(accounts);
    clock.advance(3 * 24 * 60 * 60_000);
    await store.activity.append({ userId, type: 'name-changed', at: clock.now(), clientIp: null, userAgent: null, actor: null, details: {} });
    const swept = await accounts.sweep();
    expect(swept.activity).toBe(2);
    expect((await store.activity.list({ userId, limit: 10 })).map((e) => e.type)).toEqual(['name-changed']);
  });
});

describe('the account lock', () => {
  it('ends the sessions at once; a right password is 403 account_locked, a wrong one 401; unlocking lets the owner in', async () => {
    const { accounts, admin, live } = setup();
    const { userId, token } = await signUp(accounts);
    await expect(admin.lockAccount(userId, {}, OPERATOR)).rejects.toBeInstanceOf(ValidationError);
    const locked = await admin.lockAccount(userId, { reason: 'reported stolen' }, OPERATOR);
    expect(locked).toMatchObject({ account: { id: userId, locked: true }, endedSessions: 1 });
    expect(await live(token)).toBe('ended');
    await expect(accounts.login({ email: ADA.email, password: ADA.password }, META)).rejects.toBeInstanceOf(AccountLocked);
    await expect(accounts.login({ email: ADA.email, password: 'wrong password!' }, META)).rejects.toBeInstanceOf(InvalidCredentials);
    await admin.unlockAccount(userId, {}, OPERATOR);
    const back = signedInAtOnce(await accounts.login({ email: ADA.email, password: ADA.password }, META));
    const events = (await accounts.myActivity(null, { sessionToken: back.session.token })).events;
    expect(events.slice(0, 3).map((e) => e.type)).toEqual(['signed-in', 'account-unlocked', 'sign-in-failed']);
    const lock = events.find((e) => e.type === 'account-locked')!;
    // The owner sees that an operator acted and why, not the operator's name.
    expect(lock).toMatchObject({ actor: 'operator', details: { reason: 'reported stolen' } });
    const all = await admin.listActivity(null, 'account-locked');
    expect(all.events).toHaveLength(1);
    expect(all.events[0]).toMatchObject({ actor: 'alice', clientIp: '198.51.100.1' });
  });

  it('a lock racing logins leaves no session', async () => {
    const { accounts, admin, store } = setup();
    const { userId } = await signUp(accounts);
    const logins = Array.from({ length: 10 }, () => accounts.login({ email: ADA.email, password: ADA.password }, META).catch(() => null));
    await admin.lockAccount(userId, { reason: 'race' }, OPERATOR);
    await Promise.all(logins);
    expect(await store.sessions.listByUser(userId, new Date(0))).toEqual([]);
  });

  it('unknown accounts and ids are NotFound and ValidationError', async () => {
    const { admin } = setup();
    await expect(admin.lockAccount(999, { reason: 'x' }, OPERATOR)).rejects.toBeInstanceOf(NotFound);
    await expect(admin.showAccount('abc')).rejects.toBeInstanceOf(ValidationError);
    await expect(admin.listActivity(null, 'nonsense')).rejects.toBeInstanceOf(ValidationError);
  });

  it('a reason no store keeps as given (U+0000, an unpaired surrogate) or a body that is no object is a ValidationError, and nothing changes', async () => {
    const { accounts, admin, live } = setup();
    const { userId, token } = await signUp(accounts);
    // PostgreSQL refuses U+0000 in text and JSON: the lock answered 500 there, and the account stayed open.
    for (const reason of ['stolen\u0000', 'a\ud800b', '\udfff']) {
      await expect(admin.lockAccount(userId, { reason }, OPERATOR)).rejects.toBeInstanceOf(ValidationError);
      await expect(admin.endSessions(userId, { reason }, OPERATOR)).rejects.toBeInstanceOf(ValidationError);
    }
    for (const body of [null, [], 'x', 1]) await expect(admin.unlockAccount(userId, body, OPERATOR)).rejects.toBeInstanceOf(ValidationError);
    expect(await live(token)).toBe('live');
    // No body at all is no reason, where none is required; a pair of surrogates is a character like any.
    await expect(admin.endSessions(userId, undefined, OPERATOR)).resolves.toEqual({ endedSessions: 1 });
    await expect(admin.lockAccount(userId, { reason: 'reported by 😀' }, OPERATOR)).resolves.toMatchObject({ endedSessions: 0 });
  });
});

describe("the operator's tools and the owner's export", () => {
  it('finds by address prefix, shows, ends sessions, removes factors, exports and deletes', async () => {
    const { accounts, admin, store, live } = setup();
    const { userId, token } = await signUp(accounts);
    await accounts.signup({ name: 'Grace', email: 'grace@example.com', password: 'another good password' }, META);
    await accounts.contact({ name: 'Ada', email: ADA.email, message: 'Hello there, this is a message' }, META);
    expect((await admin.findAccounts('ADA@', null)).accounts.map((a) => a.email)).toEqual([ADA.email]);
    expect((await admin.findAccounts('', null)).accounts).toHaveLength(2);
    const shown = await admin.showAccount(userId);
    expect(shown.sessions).toHaveLength(1);
    expect(shown.lastEvents.map((e) => e.type)).toContain('account-created');

    const exported = await accounts.exportMyAccount({ sessionToken: token, ...META });
    expect(exported.profile).toEqual({ id: userId, name: 'Ada', email: ADA.email, emailVerified: false, locked: false });
    expect(exported.sessions).toHaveLength(1);
    expect(JSON.stringify(exported)).not.toContain('grace@example.com');
    expect(JSON.stringify(exported)).not.toContain(token);

    expect(await admin.endSessions(userId, { reason: 'asked' }, OPERATOR)).toEqual({ endedSessions: 1 });
    expect(await live(token)).toBe('ended');
    expect(await admin.removeSecondFactors(userId, { reason: 'lost phone' }, OPERATOR)).toEqual({ endedSessions: 0 });
    await admin.sendPasswordReset(userId, {}, OPERATOR);
    await admin.deleteAccount(userId, { reason: 'asked to' }, OPERATOR);
    expect(await store.users.findById(userId)).toBeNull();
    const types = (await store.activity.list({ userId, limit: 50 })).map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(['account-deleted', 'password-reset-sent', 'factor-removed', 'sessions-ended']);
  });

  it('the export needs a step-up when a factor is on', async () => {
    const { accounts, store } = setup();
    const { userId, token } = await signUp(accounts);
    await expect(accounts.exportMyAccount({ sessionToken: 'nope', ...META })).rejects.toBeInstanceOf(Unauthenticated);
    const passkey = { id: 'cGFzc2tleQ', userId, name: 'Phone', publicKey: new Uint8Array([1, 2, 3]), counter: 0, transports: [], createdAt: new Date(), lastUsedAt: null };
    expect(await store.passkeys.insert(passkey, (await store.users.findById(userId))!.credentialGeneration)).toBe(true);
    await expect(accounts.exportMyAccount({ sessionToken: token, ...META })).rejects.toBeInstanceOf(SecondFactorRequired);
  });
});
