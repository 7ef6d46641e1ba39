/**
 * The credential stamp (issue 25) in the use cases, on the memory store: a password check that a
 * change of credential overtakes opens nothing, the owner's own checks are limited per session, a
 * completed reset clears the account's failures and proves the device, reset tokens and device
 * proofs die with what they were bound to. The races are made exact with a hasher that holds one
 * verification until released.
 */
import { describe, expect, it } from 'vitest';
import {
  RESET_ADDRESS_LIMIT,
  InvalidCredentials,
  Pbkdf2PasswordHasher,
  RateLimited,
  Unauthenticated,
  ValidationError,
  WrongPassword,
  countedLimits,
  createAccounts,
  randomTokens,
  type AccountsOptions,
  type PasswordHasher,
} from '@sl-accounts/service/core';
import { ManualClock, signedInAtOnce } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };
const NEW_PASSWORD = 'a new and longer passphrase';

/** A PBKDF2 hasher whose next verification, once `holdNext` is called, waits for `release`. */
class HoldingHasher implements PasswordHasher {
  readonly #inner: Pbkdf2PasswordHasher;
  #held: { entered: () => void; released: Promise<void> } | undefined;

  constructor(iterations = 1000) {
    this.#inner = new Pbkdf2PasswordHasher({ iterations });
  }

  /** Holds the next verification; `entered` resolves once it started (its account was read before). */
  holdNext(): { entered: Promise<void>; release: () => void } {
    let entered!: () => void;
    let release!: () => void;
    const started = new Promise<void>((resolve) => (entered = resolve));
    this.#held = { entered, released: new Promise<void>((resolve) => (release = resolve)) };
    return { entered: started, release };
  }

  async verify(password: string, phc: string): Promise<boolean> {
    const held = this.#held;
    this.#held = undefined;
    if (held) {
      held.entered();
      await held.released;
    }
    return this.#inner.verify(password, phc);
  }

  hash = (password: string) => this.#inner.hash(password);
  needsRehash = (phc: string) => this.#inner.needsRehash(phc);
  verifyDummy = (password: string) => this.#inner.verifyDummy(password);
}

let ip = 0;
const meta = (sessionToken: string | null = null, deviceProof: string | null = null) => ({ clientIp: `203.0.${++ip >> 8}.${ip & 255}`, sessionToken, deviceProof });

function setup(options: AccountsOptions = {}, hasher = new HoldingHasher()) {
  const store = createMemoryStore();
  const clock = new ManualClock();
  const accounts = createAccounts({ store, hasher, clock, tokens: randomTokens }, options);
  /** The token of the latest reset mail queued. */
  const resetToken = async () => {
    await accounts.settled();
    const mails = await store.outbox.claim(new Date(clock.now().getTime() + 1), { limit: 100, leaseMs: 3_600_000 });
    const reset = mails.filter((m) => m.subject.startsWith('Reset')).at(-1)!;
    return new URL(/https?:\/\/\S+/.exec(reset.text)![0]).searchParams.get('token')!;
  };
  /** Logins with wrong passwords from other addresses until the account's login lock holds. */
  const lockOut = async () => {
    for (let i = 0; i < 20; i++) await expect(accounts.login({ email: ADA.email, password: `wrong ${i}` }, meta())).rejects.toBeInstanceOf(InvalidCredentials);
    await expect(accounts.login(ADA, meta())).rejects.toBeInstanceOf(RateLimited);
  };
  /** Confirms the signup's verification link, as its owner does: with the account's session. */
  const verifyAddress = async (sessionToken: string) => {
    await accounts.settled();
    const mails = await store.outbox.claim(new Date(clock.now().getTime() + 1), { limit: 100, leaseMs: 3_600_000 });
    const link = mails.filter((m) => m.subject.startsWith('Confirm your address')).at(-1)!;
    await accounts.confirmEmail({ token: new URL(/https?:\/\/\S+/.exec(link.text)![0]).searchParams.get('token')! }, meta(sessionToken));
  };
  return { store, clock, accounts, hasher, resetToken, lockOut, verifyAddress };
}

describe('a login whose password check a change of credential overtakes', () => {
  for (const change of ['password change', 'reset', 'deletion'] as const) {
    it(`opens nothing when a ${change} commits while it hashes`, async () => {
      const { accounts, hasher, store, resetToken } = setup();
      const { user, session } = await accounts.signup(ADA, meta());
      if (change === 'reset') await accounts.requestPasswordReset({ email: ADA.email }, meta());
      const token = change === 'reset' ? await resetToken() : '';
      const hold = hasher.holdNext();
      const login = accounts.login(ADA, meta());
      await hold.entered;
      if (change === 'password change') await accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(session.token));
      else if (change === 'reset') await accounts.confirmPasswordReset({ token, newPassword: NEW_PASSWORD }, meta());
      else await accounts.deleteAccount({ password: ADA.password }, meta(session.token));
      hold.release();
      await expect(login).rejects.toBeInstanceOf(InvalidCredentials);
      // Only the session that changed the password is left.
      const left = (await store.sessions.listByUser(user.id, new Date('2026-01-01T00:00:00Z'))).length;
      expect(left).toBe(change === 'password change' ? 1 : 0);
    });
  }

  it('a password change and a deletion whose check a reset overtook change nothing, and end no one', async () => {
    const { accounts, hasher, resetToken } = setup();
    const { session } = await accounts.signup(ADA, meta());
    for (const act of ['change', 'delete'] as const) {
      await accounts.requestPasswordReset({ email: ADA.email }, meta());
      const token = await resetToken();
      const thief = (signedInAtOnce(await accounts.login(act === 'change' ? ADA : { email: ADA.email, password: NEW_PASSWORD }, meta()))).session.token;
      const password = act === 'change' ? ADA.password : NEW_PASSWORD;
      const hold = hasher.holdNext();
      const attempt =
        act === 'change'
          ? accounts.changePassword({ currentPassword: password, newPassword: 'the thief’s own password' }, meta(thief))
          : accounts.deleteAccount({ password }, meta(thief));
      await hold.entered;
      // The owner recovers the account meanwhile.
      await accounts.confirmPasswordReset({ token, newPassword: NEW_PASSWORD }, meta());
      hold.release();
      await expect(attempt).rejects.toBeInstanceOf(Unauthenticated);
      await expect(accounts.login({ email: ADA.email, password: NEW_PASSWORD }, meta())).resolves.toMatchObject({ user: { email: ADA.email } });
    }
    await expect(accounts.me(meta(session.token))).rejects.toBeInstanceOf(Unauthenticated);
  });
});

describe('a rehash at login', () => {
  it('never overwrites a password changed while the login hashed', async () => {
    const weak = setup({}, new HoldingHasher(1000));
    const { session } = await weak.accounts.signup(ADA, meta());
    // The same store under a higher work factor: the next login upgrades the hash.
    const hasher = new HoldingHasher(2000);
    const accounts = createAccounts({ store: weak.store, hasher, clock: weak.clock, tokens: randomTokens });
    const hold = hasher.holdNext();
    const login = accounts.login(ADA, meta());
    await hold.entered;
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(session.token));
    hold.release();
    await expect(login).rejects.toBeInstanceOf(InvalidCredentials);
    await expect(accounts.login(ADA, meta())).rejects.toBeInstanceOf(InvalidCredentials);
    await expect(accounts.login({ email: ADA.email, password: NEW_PASSWORD }, meta())).resolves.toBeDefined();
  });

  it('is no change of credential: the generation stays and every session lives on', async () => {
    const weak = setup({}, new HoldingHasher(1000));
    const { user, session } = await weak.accounts.signup(ADA, meta());
    const accounts = createAccounts({ store: weak.store, hasher: new HoldingHasher(2000), clock: weak.clock, tokens: randomTokens });
    signedInAtOnce(await accounts.login(ADA, meta()));
    expect(await weak.store.users.findById(user.id)).toMatchObject({ passwordHash: expect.stringMatching(/^\$pbkdf2-sha256\$i=2000\$/), credentialGeneration: 0 });
    await expect(accounts.me(meta(session.token))).resolves.toEqual(user);
  });
});

describe('the owner’s own password checks', () => {
  it('are not locked by the account’s login lock that others hold', async () => {
    const { accounts, lockOut } = setup();
    const { session } = await accounts.signup(ADA, meta());
    await lockOut();
    const changed = await accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(session.token));
    expect(changed.limits).toEqual([{ policy: 'session-password', limit: 20, windowSeconds: 900, remaining: 20, resetSeconds: 900 }]);
    await expect(accounts.deleteAccount({ password: NEW_PASSWORD }, meta(session.token))).resolves.toBeDefined();
  });

  it('are limited per session: 20 wrong ones lock that session’s checks, not another session’s, nor logins', async () => {
    const { accounts } = setup();
    const { session } = await accounts.signup(ADA, meta());
    const other = (signedInAtOnce(await accounts.login(ADA, meta()))).session.token;
    for (let i = 0; i < 20; i++) {
      await expect(accounts.changePassword({ currentPassword: `wrong ${i}`, newPassword: NEW_PASSWORD }, meta(session.token))).rejects.toBeInstanceOf(WrongPassword);
    }
    const limited = await accounts.deleteAccount({ password: ADA.password }, meta(session.token)).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimited);
    expect(countedLimits(limited)).toEqual([expect.objectContaining({ policy: 'session-password', remaining: 0 })]);
    await expect(accounts.login(ADA, meta())).resolves.toBeDefined();
    await expect(accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(other))).resolves.toBeDefined();
  });

  it('stay bounded when the per-account login limit is off', async () => {
    const { accounts } = setup({ accountLoginLimit: null });
    const { session } = await accounts.signup(ADA, meta());
    for (let i = 0; i < 20; i++) await expect(accounts.deleteAccount({ password: `wrong ${i}` }, meta(session.token))).rejects.toBeInstanceOf(WrongPassword);
    await expect(accounts.deleteAccount({ password: ADA.password }, meta(session.token))).rejects.toBeInstanceOf(RateLimited);
  });
});

describe('a completed reset', () => {
  it('clears the account’s failed logins and gives the client a device proof that passes the next lockout', async () => {
    const { accounts, lockOut, resetToken } = setup();
    await accounts.signup(ADA, meta());
    await lockOut();
    await accounts.requestPasswordReset({ email: ADA.email }, meta());
    const { device } = await accounts.confirmPasswordReset({ token: await resetToken(), newPassword: NEW_PASSWORD }, meta());
    const fresh = { email: ADA.email, password: NEW_PASSWORD };
    // Cleared: a new browser signs in at once.
    await expect(accounts.login(fresh, meta())).resolves.toBeDefined();
    // Others lock the account again; the reset's browser still signs in, on its own limit.
    for (let i = 0; i < 20; i++) await expect(accounts.login({ email: ADA.email, password: `again ${i}` }, meta())).rejects.toBeInstanceOf(InvalidCredentials);
    await expect(accounts.login(fresh, meta())).rejects.toBeInstanceOf(RateLimited);
    const owner = signedInAtOnce(await accounts.login(fresh, meta(null, device.proof)));
    expect(owner.limits.map((l) => l.policy)).toEqual(['login', 'login-device']);
  });
});

describe('reset tokens die with every change of credential', () => {
  it('after a password change', async () => {
    const { accounts, resetToken, verifyAddress } = setup();
    const { session } = await accounts.signup(ADA, meta());
    // Verified: an unverified account's reset is its inbox owner's whatever its sessions change (below).
    await verifyAddress(session.token);
    await accounts.requestPasswordReset({ email: ADA.email }, meta());
    const token = await resetToken();
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(session.token));
    await expect(accounts.confirmPasswordReset({ token, newPassword: 'the thief’s own password' }, meta())).rejects.toBeInstanceOf(ValidationError);
    await expect(accounts.login({ email: ADA.email, password: NEW_PASSWORD }, meta())).resolves.toBeDefined();
  });

  it('but not after the own password change of an account whose address nobody proved: its inbox owner takes it', async () => {
    const { accounts, resetToken } = setup();
    // Whoever made the account with this address knows its password, and changes it to void the owner's link.
    const { session } = await accounts.signup(ADA, meta());
    await accounts.requestPasswordReset({ email: ADA.email }, meta());
    const token = await resetToken();
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(session.token));
    await accounts.confirmPasswordReset({ token, newPassword: 'the inbox owner’s own' }, meta());
    expect(signedInAtOnce(await accounts.login({ email: ADA.email, password: 'the inbox owner’s own' }, meta())).user.emailVerified).toBe(true);
    await expect(accounts.login({ email: ADA.email, password: NEW_PASSWORD }, meta())).rejects.toBeInstanceOf(InvalidCredentials);
    await expect(accounts.me(meta(session.token))).rejects.toBeInstanceOf(Unauthenticated);
  });

  it('after another reset, and after the account’s deletion (also for a new account at the address)', async () => {
    const { accounts, resetToken, clock } = setup();
    await accounts.signup(ADA, meta());
    await accounts.requestPasswordReset({ email: ADA.email }, meta());
    const first = await resetToken();
    await accounts.requestPasswordReset({ email: ADA.email }, meta());
    await accounts.confirmPasswordReset({ token: await resetToken(), newPassword: NEW_PASSWORD }, meta());
    await expect(accounts.confirmPasswordReset({ token: first, newPassword: 'the thief’s own password' }, meta())).rejects.toBeInstanceOf(ValidationError);
    // Past the address's reset links of the last 30 minutes (RESET_ADDRESS_LIMIT), so the next one is mailed.
    clock.advance(RESET_ADDRESS_LIMIT.windowMs);
    await accounts.requestPasswordReset({ email: ADA.email }, meta());
    const beforeDeletion = await resetToken();
    const { session } = signedInAtOnce(await accounts.login({ email: ADA.email, password: NEW_PASSWORD }, meta()));
    await accounts.deleteAccount({ password: NEW_PASSWORD }, meta(session.token));
    await accounts.signup(ADA, meta());
    await expect(accounts.confirmPasswordReset({ token: beforeDeletion, newPassword: 'the thief’s own password' }, meta())).rejects.toBeInstanceOf(ValidationError);
    await expect(accounts.login(ADA, meta())).resolves.toBeDefined();
  });
});

describe('device proofs belong to the account, not the address', () => {
  it('a deleted account’s proof counts for nothing at a new account of the same address', async () => {
    const { accounts, lockOut } = setup();
    const old = await accounts.signup(ADA, meta());
    await accounts.deleteAccount({ password: ADA.password }, meta(old.session.token));
    const fresh = await accounts.signup(ADA, meta());
    expect(fresh.user.id).not.toBe(old.user.id);
    await lockOut();
    await expect(accounts.login(ADA, meta(null, old.device.proof))).rejects.toBeInstanceOf(RateLimited);
    await expect(accounts.login(ADA, meta(null, fresh.device.proof))).resolves.toBeDefined();
  });

  it('an unknown address checks the presented proofs all the same and is counted like a known one', async () => {
    const { accounts } = setup({ accountLoginLimit: { limit: 2, windowMs: 60_000 } });
    const { device } = await accounts.signup(ADA, meta());
    const answers = [];
    for (const email of [ADA.email, 'nobody@example.com']) {
      for (let i = 0; i < 3; i++) {
        const failure = await accounts.login({ email, password: 'wrong' }, meta(null, `${device.proof}x`)).catch((e: unknown) => e);
        answers.push({ email, error: (failure as Error).constructor.name, limits: countedLimits(failure).map((l) => [l.policy, l.remaining]) });
      }
    }
    expect(answers.slice(3).map(({ error, limits }) => ({ error, limits }))).toEqual(answers.slice(0, 3).map(({ error, limits }) => ({ error, limits })));
    expect(answers.map((a) => a.error)).toEqual(['InvalidCredentials', 'InvalidCredentials', 'RateLimited', 'InvalidCredentials', 'InvalidCredentials', 'RateLimited']);
  });
});
