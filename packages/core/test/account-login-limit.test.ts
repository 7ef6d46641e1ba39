/**
 * Failed logins per account: counted per normalised e-mail whether or not it is registered, before
 * the password is checked, and taken back when the login succeeds.
 */
import { describe, expect, it } from 'vitest';
import { ACCOUNT_LOGIN_LIMIT, InvalidCredentials, countedLimits, Pbkdf2PasswordHasher, RateLimited, createAccounts, randomTokens, type AccountsOptions, type RateLimitStatus } from '@sl-accounts/service/core';
import { ManualClock } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

const ALICE = { name: 'Alice', email: 'alice@example.com', password: 'correct horse' };

async function setup(options: AccountsOptions = {}) {
  const store = createMemoryStore();
  const clock = new ManualClock();
  let verifications = 0;
  const inner = new Pbkdf2PasswordHasher({ iterations: 1 });
  const hasher = {
    hash: (p: string) => inner.hash(p),
    needsRehash: (phc: string) => inner.needsRehash(phc),
    verify: (p: string, phc: string) => (verifications++, inner.verify(p, phc)),
    verifyDummy: (p: string) => (verifications++, inner.verifyDummy(p)),
  };
  const accounts = createAccounts({ store, hasher, clock, tokens: randomTokens }, options);
  await accounts.signup(ALICE, { clientIp: '192.0.2.1' });
  let ip = 0;
  // Every attempt from another address: only the per-account limit can stop them.
  // `reports` hears the quota the login left, from its result or its error.
  const login = (email: string, password: string, reports?: RateLimitStatus[]) =>
    accounts.login({ email, password }, { clientIp: `10.0.${++ip >> 8}.${ip & 255}` }).then(
      ({ limits }) => (reports?.push(...limits), 200),
      (e: unknown) => (reports?.push(...countedLimits(e)), e instanceof RateLimited ? 429 : e instanceof InvalidCredentials ? 401 : e),
    );
  return { store, clock, accounts, login, verifications: () => verifications };
}

describe('failed logins per account', () => {
  it('20 failures per 15 minutes by default, from any number of addresses; then 429 even with the right password', async () => {
    expect(ACCOUNT_LOGIN_LIMIT).toEqual({ limit: 20, windowMs: 15 * 60_000, guesses: true });
    const { login, clock } = await setup();
    for (let i = 0; i < 20; i++) expect(await login(ALICE.email, `wrong ${i}`)).toBe(401);
    expect(await login(ALICE.email, 'wrong again')).toBe(429);
    expect(await login(' ALICE@Example.COM ', ALICE.password)).toBe(429);
    clock.advance(15 * 60_000);
    expect(await login(ALICE.email, ALICE.password)).toBe(200);
  });

  it('an unknown e-mail is limited exactly like a registered one, so a 429 and its headers reveal nothing', async () => {
    const { login } = await setup();
    const seen: { known: unknown[][]; unknown: unknown[][] } = { known: [], unknown: [] };
    for (const [label, email] of [['known', ALICE.email], ['unknown', 'nobody@example.com']] as const) {
      for (let i = 0; i < 22; i++) {
        const reports: RateLimitStatus[] = [];
        const status = await login(email, 'wrong password', reports);
        seen[label].push([...reports, { status }]);
      }
    }
    expect(seen.unknown).toEqual(seen.known);
    expect(seen.known[19]).toEqual([
      { policy: 'login', limit: 20, windowSeconds: 900, remaining: 19, resetSeconds: 900 },
      { policy: 'login-account', limit: 20, windowSeconds: 900, remaining: 0, resetSeconds: 900 },
      { status: 401 },
    ]);
    expect(seen.known[20]![1]).toMatchObject({ policy: 'login-account', remaining: 0 });
    expect(seen.known[20]![2]).toEqual({ status: 429 });
  });

  it('counts the normalised e-mail: case and surrounding spaces are one account', async () => {
    const { login } = await setup({ accountLoginLimit: { limit: 2, windowMs: 60_000 } });
    expect(await login('Bob@Example.com', 'x')).toBe(401);
    expect(await login('  bob@example.COM', 'x')).toBe(401);
    expect(await login('bob@example.com', 'x')).toBe(429);
    expect(await login('carol@example.com', 'x')).toBe(401);
  });

  it('a successful login is not counted, and reports the quota it leaves', async () => {
    const { login } = await setup({ accountLoginLimit: { limit: 3, windowMs: 60_000 } });
    expect(await login(ALICE.email, 'wrong')).toBe(401);
    for (let i = 0; i < 10; i++) expect(await login(ALICE.email, ALICE.password)).toBe(200);
    const reports: RateLimitStatus[] = [];
    expect(await login(ALICE.email, ALICE.password, reports)).toBe(200);
    expect(reports.filter((r) => r.policy === 'login-account').map((r) => r.remaining)).toEqual([2]);
    expect(await login(ALICE.email, 'wrong')).toBe(401);
    expect(await login(ALICE.email, 'wrong')).toBe(401);
    expect(await login(ALICE.email, 'wrong')).toBe(429);
  });

  it('of 100 concurrent guesses at one account, exactly the limit get a password check', async () => {
    const { login, verifications } = await setup();
    const before = verifications();
    const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => login(ALICE.email, `guess ${i}`)));
    expect(statuses.filter((s) => s === 401)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(80);
    expect(verifications() - before).toBe(20);
  });

  it('invalid bodies are not counted against any account', async () => {
    const { accounts, login } = await setup({ accountLoginLimit: { limit: 1, windowMs: 60_000 } });
    for (let i = 0; i < 5; i++) await expect(accounts.login({ email: ALICE.email }, { clientIp: '192.0.2.50' })).rejects.toThrow(/password/);
    expect(await login(ALICE.email, ALICE.password)).toBe(200);
  });

  it('can be configured, or turned off with null', async () => {
    const off = await setup({ accountLoginLimit: null });
    for (let i = 0; i < 30; i++) expect(await off.login(ALICE.email, 'wrong')).toBe(401);
    expect(await off.login(ALICE.email, ALICE.password)).toBe(200);
  });
});
