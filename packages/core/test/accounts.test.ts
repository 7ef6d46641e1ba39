import { beforeEach, describe, expect, it } from 'vitest';
import {
  DEVICE_PROOF_TTL_MS,
  EmailTaken,
  InvalidCredentials,
  Pbkdf2PasswordHasher,
  RateLimited,
  SESSION_TTL_MS,
  Unauthenticated,
  ValidationError,
  countedLimits,
  createAccounts,
  digestToken,
  randomTokens,
  type PasswordHasher,
} from '@sl-accounts/service/core';
import { createMemoryStore, type MemoryStore } from '@sl-accounts/store-memory';
import { ManualClock, signedInAtOnce } from '@sl-accounts/service/core/testing';

const ALICE = { name: 'Alice', email: 'alice@example.com', password: 'correct horse' };
const meta = (clientIp = '203.0.113.1', sessionToken?: string) => ({ clientIp, sessionToken: sessionToken ?? null });

/** Records which hasher methods ran, so the dummy path is observable. */
class RecordingHasher implements PasswordHasher {
  readonly calls: string[] = [];
  private readonly inner: Pbkdf2PasswordHasher;
  constructor(iterations = 1000) {
    this.inner = new Pbkdf2PasswordHasher({ iterations });
  }
  hash(p: string) {
    this.calls.push('hash');
    return this.inner.hash(p);
  }
  verify(p: string, phc: string) {
    this.calls.push('verify');
    return this.inner.verify(p, phc);
  }
  needsRehash(phc: string) {
    return this.inner.needsRehash(phc);
  }
  verifyDummy(p: string) {
    this.calls.push('verifyDummy');
    return this.inner.verifyDummy(p);
  }
}

function setup(hasher: PasswordHasher = new RecordingHasher()) {
  const store = createMemoryStore();
  const clock = new ManualClock();
  const accounts = createAccounts({ store, hasher, clock, tokens: randomTokens });
  return { store, clock, accounts, hasher };
}

describe('signup', () => {
  it('creates the user with a normalised e-mail and trimmed name, and signs them in', async () => {
    const { accounts, store } = setup();
    const { user, session } = await accounts.signup({ ...ALICE, name: '  Alice ', email: '  Alice@Example.COM ' }, meta());
    expect(user).toEqual({ id: 1, name: 'Alice', email: 'alice@example.com', emailVerified: false });
    expect(session.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.maxAgeSeconds).toBe(604_800);
    expect(await accounts.me(meta(undefined, session.token))).toEqual(user);
    const record = await store.users.findByEmail('alice@example.com');
    expect(record?.passwordHash).toMatch(/^\$pbkdf2-sha256\$i=1000\$/);
  });

  it('stores only the digest of the session token', async () => {
    const { accounts, store } = setup();
    const { session } = await accounts.signup(ALICE, meta());
    expect(await store.sessions.findWithUser(session.token)).toBeNull();
    expect(await store.sessions.findWithUser(digestToken(session.token))).not.toBeNull();
  });

  it('refuses an e-mail that is taken, whatever its case', async () => {
    const { accounts } = setup();
    await accounts.signup(ALICE, meta());
    await expect(accounts.signup({ ...ALICE, email: 'ALICE@example.com' }, meta())).rejects.toBeInstanceOf(EmailTaken);
  });

  it('lists every invalid field', async () => {
    const { accounts } = setup();
    const error = await accounts.signup({ name: 'A', email: 'nope', password: 'short' }, meta()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual(['name', 'email', 'password']);
  });

  it('says which type a field must have', async () => {
    const { accounts } = setup();
    const error = (await accounts.signup({ ...ALICE, password: 12345678, name: ['x'] }, meta()).catch((e: unknown) => e)) as ValidationError;
    expect(error.issues).toEqual([
      { path: 'name', message: 'must be a string' },
      { path: 'password', message: 'must be a string' },
    ]);
    expect((await accounts.signup('text', meta()).catch((e: unknown) => e)) as ValidationError).toMatchObject({ issues: [{ path: '', message: 'the body must be a JSON object' }] });
  });

  it('counts password length in characters, not UTF-16 units, and never trims it', async () => {
    const { accounts } = setup();
    // 7 emoji are 14 UTF-16 units but 7 characters: too short.
    await expect(accounts.signup({ ...ALICE, password: '😀'.repeat(7) }, meta())).rejects.toBeInstanceOf(ValidationError);
    const { session } = await accounts.signup({ ...ALICE, password: '  spaced  ' }, meta());
    expect(session.token).toBeTruthy();
    await expect(accounts.login({ email: ALICE.email, password: 'spaced' }, meta())).rejects.toBeInstanceOf(InvalidCredentials);
    await expect(accounts.login({ email: ALICE.email, password: '  spaced  ' }, meta())).resolves.toBeTruthy();
  });
});

describe('login', () => {
  let ctx: ReturnType<typeof setup> & { hasher: RecordingHasher };
  beforeEach(async () => {
    ctx = setup() as typeof ctx;
    await ctx.accounts.signup(ALICE, meta());
    ctx.hasher.calls.length = 0;
  });

  it('returns the user and a fresh session', async () => {
    const first = signedInAtOnce(await ctx.accounts.login({ email: 'ALICE@example.com', password: ALICE.password }, meta()));
    const second = signedInAtOnce(await ctx.accounts.login({ email: ALICE.email, password: ALICE.password }, meta()));
    expect(first.user.email).toBe('alice@example.com');
    expect(first.session.token).not.toBe(second.session.token);
  });

  it('gives the same error for an unknown e-mail and a wrong password, after a full verification', async () => {
    const unknown = await ctx.accounts.login({ email: 'bob@example.com', password: 'whatever1' }, meta()).catch((e: unknown) => e);
    expect(ctx.hasher.calls).toEqual(['verifyDummy']);
    const wrong = await ctx.accounts.login({ email: ALICE.email, password: 'wrong password' }, meta()).catch((e: unknown) => e);
    expect(ctx.hasher.calls).toEqual(['verifyDummy', 'verify']);
    expect(unknown).toBeInstanceOf(InvalidCredentials);
    expect(wrong).toBeInstanceOf(InvalidCredentials);
    expect((unknown as Error).message).toBe((wrong as Error).message);
  });

  it('ends the session the client presented before issuing a new one', async () => {
    const { session: old } = signedInAtOnce(await ctx.accounts.login({ email: ALICE.email, password: ALICE.password }, meta()));
    const { session: fresh } = signedInAtOnce(await ctx.accounts.login({ email: ALICE.email, password: ALICE.password }, meta(undefined, old.token)));
    await expect(ctx.accounts.me(meta(undefined, old.token))).rejects.toBeInstanceOf(Unauthenticated);
    await expect(ctx.accounts.me(meta(undefined, fresh.token))).resolves.toMatchObject({ email: ALICE.email });
  });

  it('upgrades a hash weaker than the configured work factor at the next successful login', async () => {
    const store = createMemoryStore();
    const clock = new ManualClock();
    const weak = createAccounts({ store, hasher: new Pbkdf2PasswordHasher({ iterations: 1000 }), clock, tokens: randomTokens });
    await weak.signup(ALICE, meta());
    const strong = createAccounts({ store, hasher: new Pbkdf2PasswordHasher({ iterations: 2000 }), clock, tokens: randomTokens });

    await expect(strong.login({ email: ALICE.email, password: 'wrong password' }, meta())).rejects.toBeInstanceOf(InvalidCredentials);
    expect((await store.users.findByEmail(ALICE.email))?.passwordHash).toMatch(/^\$pbkdf2-sha256\$i=1000\$/);

    await strong.login({ email: ALICE.email, password: ALICE.password }, meta());
    const upgraded = (await store.users.findByEmail(ALICE.email))?.passwordHash;
    expect(upgraded).toMatch(/^\$pbkdf2-sha256\$i=2000\$/);
    await expect(strong.login({ email: ALICE.email, password: ALICE.password }, meta())).resolves.toBeTruthy();
  });
});

describe('sessions', () => {
  it('expire exactly 7 days after issue, and the expired row is deleted', async () => {
    const { accounts, clock, store } = setup();
    const { session } = await accounts.signup(ALICE, meta());
    clock.advance(SESSION_TTL_MS - 1);
    await expect(accounts.me(meta(undefined, session.token))).resolves.toMatchObject({ email: ALICE.email });
    clock.advance(1);
    await expect(accounts.me(meta(undefined, session.token))).rejects.toBeInstanceOf(Unauthenticated);
    expect(store.sessions.size).toBe(0);
  });

  it('logout ends the session; a second logout, a missing or an expired session is Unauthenticated', async () => {
    const { accounts, clock } = setup();
    const { session } = await accounts.signup(ALICE, meta());
    await accounts.logout(meta(undefined, session.token));
    await expect(accounts.me(meta(undefined, session.token))).rejects.toBeInstanceOf(Unauthenticated);
    await expect(accounts.logout(meta(undefined, session.token))).rejects.toBeInstanceOf(Unauthenticated);
    await expect(accounts.logout(meta())).rejects.toBeInstanceOf(Unauthenticated);

    const { session: other } = signedInAtOnce(await accounts.login({ email: ALICE.email, password: ALICE.password }, meta()));
    clock.advance(SESSION_TTL_MS);
    await expect(accounts.logout(meta(undefined, other.token))).rejects.toBeInstanceOf(Unauthenticated);
  });

  it('the sweep counts the states of provider sign-ins whose callback never came, and keeps those still waiting', async () => {
    const { accounts, clock, store } = setup();
    const state = (n: number, minutes: number) => ({
      digest: n.toString(16).padStart(64, '0'),
      purpose: 'sign-in-state' as const,
      userId: null,
      credentialGeneration: null,
      email: null,
      data: '{}',
      failures: 0,
      createdAt: clock.now(),
      expiresAt: new Date(clock.now().getTime() + minutes * 60_000),
    });
    await store.oneTimeTokens.put(state(1, 10));
    await store.oneTimeTokens.put(state(2, 30));
    clock.advance(11 * 60_000);
    expect((await accounts.sweep()).signInStates).toBe(1);
    expect(await store.oneTimeTokens.take(['sign-in-state'], state(2, 30).digest, clock.now())).not.toBeNull();
  });

  it('the sweep deletes expired sessions, e-mail tokens and ended limiter windows only', async () => {
    const { accounts, clock, store } = setup();
    await accounts.signup(ALICE, meta());
    clock.advance(SESSION_TTL_MS / 2);
    signedInAtOnce(await accounts.login({ email: ALICE.email, password: ALICE.password }, meta('198.51.100.7')));
    // The signup's verification link (valid a day) is gone by now.
    expect(await accounts.sweep()).toEqual({ sessions: 0, resetTokens: 0, emailTokens: 1, standIns: 0, loginChallenges: 0, passkeyChallenges: 0, signInStates: 0, rateLimitWindows: 1, activity: 0 });
    clock.advance(SESSION_TTL_MS / 2);
    // The login's per-IP window, its per-account window, the account's window of new-device notices (it
    // came with no device proof) and the inbox's (the notice went to an address nobody verified).
    expect(await accounts.sweep()).toEqual({ sessions: 1, resetTokens: 0, emailTokens: 0, standIns: 0, loginChallenges: 0, passkeyChallenges: 0, signInStates: 0, rateLimitWindows: 4, activity: 0 });
    expect(store.sessions.size).toBe(1);
    expect(store.rateLimiter.size).toBe(0);
  });
});

describe('rate limits', () => {
  it.each([
    ['login', 20, 15 * 60],
    ['signup', 10, 60 * 60],
    ['contact', 5, 60 * 60],
  ] as const)('%s allows %i requests per IP per window, counting invalid ones', async (operation, limit, windowSeconds) => {
    const { accounts, clock } = setup();
    const call = (ip: string) => accounts[operation]({}, meta(ip));
    for (let i = 0; i < limit; i++) await expect(call('192.0.2.1')).rejects.toBeInstanceOf(ValidationError);
    const limited = (await call('192.0.2.1').catch((e: unknown) => e)) as RateLimited;
    expect(limited).toBeInstanceOf(RateLimited);
    expect(limited.retryAfterSeconds).toBe(windowSeconds);
    expect(limited.rateLimit).toMatchObject({ policy: operation, limit, remaining: 0, windowSeconds });
    await expect(call('192.0.2.2')).rejects.toBeInstanceOf(ValidationError);

    clock.advance(windowSeconds * 1000 - 1500);
    expect(((await call('192.0.2.1').catch((e: unknown) => e)) as RateLimited).retryAfterSeconds).toBe(2);
    clock.advance(1500);
    await expect(call('192.0.2.1')).rejects.toBeInstanceOf(ValidationError);
  });

  it('counts the request before reading the body, and never reads it when limited', async () => {
    const { accounts } = setup();
    let reads = 0;
    const body = async () => {
      reads++;
      throw new Error('unreadable');
    };
    for (let i = 0; i < 5; i++) await expect(accounts.contact(body, meta())).rejects.toThrow('unreadable');
    await expect(accounts.contact(body, meta())).rejects.toBeInstanceOf(RateLimited);
    expect(reads).toBe(5);
  });

  it('answers the quota the request left, whatever the outcome: in the result, or by the error', async () => {
    const { accounts, clock } = setup();
    const reports: unknown[] = [];
    const m = { clientIp: '192.0.2.5' };
    reports.push(...(await accounts.contact({ name: '', email: 'a@example.com', message: 'hello there!' }, m)).limits);
    const invalid = await accounts.contact({}, m).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    reports.push(...countedLimits(invalid));
    clock.advance(10_500);
    for (let i = 0; i < 4; i++) reports.push(...countedLimits(await accounts.contact({}, m).catch((e: unknown) => e)));
    expect(reports).toEqual([
      { policy: 'contact', limit: 5, windowSeconds: 3600, remaining: 4, resetSeconds: 3600 },
      { policy: 'contact', limit: 5, windowSeconds: 3600, remaining: 3, resetSeconds: 3600 },
      { policy: 'contact', limit: 5, windowSeconds: 3600, remaining: 2, resetSeconds: 3590 },
      { policy: 'contact', limit: 5, windowSeconds: 3600, remaining: 1, resetSeconds: 3590 },
      { policy: 'contact', limit: 5, windowSeconds: 3600, remaining: 0, resetSeconds: 3590 },
      { policy: 'contact', limit: 5, windowSeconds: 3600, remaining: 0, resetSeconds: 3590 },
    ]);
  });
});

describe('contact', () => {
  it('stores name, e-mail, message, client IP, user agent and time', async () => {
    const { accounts, store, clock } = setup();
    await accounts.contact({ name: ' Bob ', email: 'BOB@example.com', message: 'Hello, world' }, { clientIp: '192.0.2.9', userAgent: 'ua/1' });
    expect(store.contacts.messages).toEqual([
      { name: 'Bob', email: 'bob@example.com', message: 'Hello, world', clientIp: '192.0.2.9', userAgent: 'ua/1', receivedAt: clock.now() },
    ]);
  });
});

describe('health', () => {
  it('is ok when the store answers and unavailable when it does not', async () => {
    const { accounts, clock } = setup();
    expect(await accounts.health()).toEqual({ ok: true, status: 'ok', service: 'sl-accounts', time: clock.now().toISOString() });
    const store: MemoryStore = createMemoryStore();
    const down = createAccounts({ store: { ...store, ping: () => Promise.reject(new Error('down')) }, hasher: new RecordingHasher(), clock, tokens: randomTokens });
    expect(await down.health()).toMatchObject({ ok: false, status: 'unavailable' });
  });

  it('overlapping checks share one ping; the next check pings again', async () => {
    const store = createMemoryStore();
    const answers: (() => void)[] = [];
    const ping = () => new Promise<void>((resolve) => answers.push(resolve));
    const accounts = createAccounts({ store: { ...store, ping }, hasher: new RecordingHasher(), clock: new ManualClock(), tokens: randomTokens });
    const checks = Array.from({ length: 100 }, () => accounts.health());
    expect(answers).toHaveLength(1);
    answers[0]!();
    expect((await Promise.all(checks)).every((h) => h.ok)).toBe(true);
    const next = accounts.health();
    expect(answers).toHaveLength(2);
    answers[1]!();
    expect(await next).toMatchObject({ ok: true });
  });
});

describe('device proofs at login', () => {
  const lockOut = async (accounts: ReturnType<typeof setup>['accounts']) => {
    for (let i = 0; i < 20; i++) await expect(accounts.login({ email: ALICE.email, password: `wrong ${i}` }, meta(`198.51.100.${i}`))).rejects.toBeInstanceOf(InvalidCredentials);
    await expect(accounts.login(ALICE, meta('198.51.100.99'))).rejects.toBeInstanceOf(RateLimited);
  };

  it('a proof from signup passes a lockout for a year after it was issued, and not after', async () => {
    const { accounts, clock } = setup();
    const { device } = await accounts.signup(ALICE, meta());
    expect(device.maxAgeSeconds).toBe(DEVICE_PROOF_TTL_MS / 1000);
    await lockOut(accounts);
    await expect(accounts.login(ALICE, { ...meta(), deviceProof: device.proof })).resolves.toMatchObject({ user: { email: ALICE.email } });
    clock.advance(DEVICE_PROOF_TTL_MS + 1000);
    await lockOut(accounts);
    await expect(accounts.login(ALICE, { ...meta(), deviceProof: device.proof })).rejects.toBeInstanceOf(RateLimited);
  });

  it('a proof is bound to its account, its key and its bytes', async () => {
    const { accounts } = setup();
    const alice = await accounts.signup(ALICE, meta());
    const bob = await accounts.signup({ ...ALICE, email: 'bob@example.com' }, meta());
    await lockOut(accounts);
    const [nonce, issuedAt, mac] = alice.device.proof.split('.') as [string, string, string];
    for (const forged of [bob.device.proof, `${nonce}.${Number(issuedAt) + 1}.${mac}`, `${nonce}x.${issuedAt}.${mac}`, `${nonce}.${issuedAt}`, 'x'.repeat(300)]) {
      await expect(accounts.login(ALICE, { ...meta(), deviceProof: forged }), forged).rejects.toBeInstanceOf(RateLimited);
    }
    // The same proof under another store's key is worth nothing either.
    const elsewhere = createAccounts({ store: createMemoryStore(), hasher: new RecordingHasher(), clock: new ManualClock(), tokens: randomTokens });
    await elsewhere.signup(ALICE, meta());
    for (let i = 0; i < 20; i++) await elsewhere.login({ email: ALICE.email, password: 'wrong' }, meta(`198.51.100.${i}`)).catch(() => {});
    await expect(elsewhere.login(ALICE, { ...meta(), deviceProof: alice.device.proof })).rejects.toBeInstanceOf(RateLimited);
  });
});
