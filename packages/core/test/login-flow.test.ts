/**
 * The login flow (login-flow.ts): every way in is a first step, and every sign-in ends in
 * `endSignIn`. A way added later (an identity provider) is written here as the flow expects it: a
 * check of its own credential, then `nextStep`; it gets the whole ending (presented sessions, the
 * new-device notice and its bound, the session under the checked generation, the cap, the device
 * proof) and, with a second factor on, the `sl_login` challenge, without writing any of it again.
 */
import { describe, expect, it } from 'vitest';
import { URI, type TOTP } from 'otpauth';
import {
  createAccounts,
  developmentSecretBox,
  digestToken,
  endSignIn,
  InvalidCredentials,
  LoginChallengeInvalid,
  nextStep,
  randomTokens,
  Unauthenticated,
  type AccountsOptions,
  type LoginStep,
  type RequestMeta,
  type SignedIn,
} from '@sl-accounts/service/core';
import { ManualClock, signedInAtOnce, testHasher } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { createContext } from '../src/use-cases/context.ts';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };
const NEW_DEVICE = '[sl-accounts] New sign-in to your account';

function setup(options: AccountsOptions = {}) {
  const store = createMemoryStore();
  const clock = new ManualClock();
  const ports = { store, hasher: testHasher, clock, tokens: randomTokens };
  const all = { secrets: developmentSecretBox(), ...options };
  const accounts = createAccounts(ports, all);
  // The context a way in is written against: the same store, so the same device keys and sessions.
  const context = createContext(ports, all);
  const claim = () => store.outbox.claim(new Date(clock.now().getTime() + 1), { limit: 100, leaseMs: 60_000 });
  const noticed = async () => (await claim()).filter((m) => m.subject === NEW_DEVICE).map((m) => m.to);
  const live = async (token: string) => accounts.me({ sessionToken: token }).then((user) => user.email, (error: unknown) => (error instanceof Unauthenticated ? 'ended' : Promise.reject(error)));
  /** A first step of a way added later: it checked its own credential for the account with this address. */
  const provider = async (email: string, meta: RequestMeta): Promise<LoginStep> => {
    const account = (await store.users.findByEmail(email))!;
    return nextStep(context, { account, generation: account.credentialGeneration }, meta);
  };
  return { store, clock, accounts, context, noticed, live, provider };
}

/** Turns TOTP on for the signed-in session: the authenticator app. */
async function withTotp(accounts: ReturnType<typeof setup>['accounts'], clock: ManualClock, signed: SignedIn): Promise<TOTP> {
  const meta = { clientIp: '192.0.2.1', sessionToken: signed.session.token };
  const app = URI.parse((await accounts.startTotp({ password: ADA.password }, meta)).otpauthUri) as TOTP;
  await accounts.confirmTotp({ code: app.generate({ timestamp: clock.now().getTime() }) }, meta);
  // The next code is another step: a code works once.
  clock.advance(30_000);
  return app;
}

describe('the login flow', () => {
  it('a way added later ends as a login does: presented sessions end, a new device is told, a session and a device proof, no step-up', async () => {
    const { store, accounts, context, noticed, live, provider } = setup();
    const signedUp = await accounts.signup(ADA, { clientIp: '192.0.2.1' });
    const other = signedInAtOnce(await accounts.login(ADA, { clientIp: '192.0.2.2', deviceProof: signedUp.device.proof }));
    await noticed();

    const step = await provider(ADA.email, { clientIp: '192.0.2.3', sessionToken: [signedUp.session.token, other.session.token] });

    const signed = signedInAtOnce(step);
    expect(signed.user).toEqual({ id: signedUp.user.id, name: 'Ada', email: ADA.email, emailVerified: false });
    expect(signed.session.maxAgeSeconds).toBe(7 * 24 * 60 * 60);
    // Both presented sessions ended, not only the first; the fresh one is live.
    expect([await live(signedUp.session.token), await live(other.session.token), await live(signed.session.token)]).toEqual(['ended', 'ended', ADA.email]);
    // No device proof for the account came along: its owner is told, and the proof that comes back is genuine.
    expect(await noticed()).toEqual([ADA.email]);
    expect(await context.devices.verify(signed.device.proof, signed.user.id)).not.toBeNull();
    // One factor checked: no step-up for the session.
    expect(await store.sessions.findStepUp(digestToken(signed.session.token))).toBeNull();
  });

  it('a client with the account’s device proof is no new device; the notices’ bound is one per account, whatever the way in', async () => {
    const { accounts, noticed, provider } = setup({ newDeviceNoticeLimit: { limit: 1, windowMs: 60 * 60_000 } });
    const signedUp = await accounts.signup(ADA, { clientIp: '192.0.2.1' });
    signedInAtOnce(await provider(ADA.email, { clientIp: '192.0.2.2', deviceProof: signedUp.device.proof }));
    expect(await noticed()).toEqual([]);
    signedInAtOnce(await accounts.login(ADA, { clientIp: '192.0.2.3' }));
    // The hour's one notice went to the password login; the provider's sign-in is let in, not mailed about.
    signedInAtOnce(await provider(ADA.email, { clientIp: '192.0.2.4' }));
    expect(await noticed()).toEqual([ADA.email]);
  });

  it('a sign-in beyond the cap ends the oldest session, whatever the way in', async () => {
    const { clock, accounts, live, provider } = setup({ maxSessionsPerUser: 2 });
    // A second apart: the oldest is the one issued first (the clock stands still otherwise).
    const signedUp = await accounts.signup(ADA, { clientIp: '192.0.2.1' });
    clock.advance(1000);
    const login = signedInAtOnce(await accounts.login(ADA, { clientIp: '192.0.2.2' }));
    clock.advance(1000);
    const third = signedInAtOnce(await provider(ADA.email, { clientIp: '192.0.2.3' }));
    expect([await live(signedUp.session.token), await live(login.session.token), await live(third.session.token)]).toEqual(['ended', ADA.email, ADA.email]);
  });

  it('with a second factor on, the first step answers the sl_login challenge and ends the presented sessions; the second step ends the sign-in with its step-up', async () => {
    const { store, clock, accounts, noticed, live, provider } = setup();
    const signedUp = await accounts.signup(ADA, { clientIp: '192.0.2.1' });
    const app = await withTotp(accounts, clock, signedUp);
    const before = await store.sessions.listByUser(signedUp.user.id, clock.now());
    await noticed();

    const step = await provider(ADA.email, { clientIp: '192.0.2.2', sessionToken: signedUp.session.token });

    if (!('secondFactor' in step)) throw new Error('signed in without the second factor');
    expect(step.secondFactor.methods).toEqual(['totp', 'recovery']);
    expect(step.secondFactor.maxAgeSeconds).toBe(5 * 60);
    // No session yet; the presented one ended (the 202 clears its cookie).
    expect(await live(signedUp.session.token)).toBe('ended');
    expect(await store.sessions.listByUser(signedUp.user.id, clock.now())).toHaveLength(before.length - 1);

    const signed = await accounts.loginSecondFactor({ code: app.generate({ timestamp: clock.now().getTime() }) }, { clientIp: '192.0.2.2', loginChallenge: step.secondFactor.token, deviceProof: signedUp.device.proof });
    expect(signed.user.email).toBe(ADA.email);
    expect(await live(signed.session.token)).toBe(ADA.email);
    expect((await store.sessions.findStepUp(digestToken(signed.session.token)))?.kind).toBe('totp');
    // The device proof the signup gave: no new device.
    expect(await noticed()).toEqual([]);
  });

  it('the ending stores nothing under a generation that moved on, and fails with the way’s own error', async () => {
    const { store, clock, accounts, context, noticed } = setup();
    const signedUp = await accounts.signup(ADA, { clientIp: '192.0.2.1' });
    const account = (await store.users.findByEmail(ADA.email))!;
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: 'another passphrase' }, { clientIp: '192.0.2.1', sessionToken: signedUp.session.token });
    await noticed();
    const sessions = await store.sessions.listByUser(account.id, clock.now());

    await expect(endSignIn(context, { account, generation: account.credentialGeneration }, { clientIp: '192.0.2.2' })).rejects.toBeInstanceOf(InvalidCredentials);
    await expect(endSignIn(context, { account, generation: account.credentialGeneration, factor: 'totp', failure: () => new LoginChallengeInvalid() }, { clientIp: '192.0.2.2' })).rejects.toBeInstanceOf(LoginChallengeInvalid);

    expect(await store.sessions.listByUser(account.id, clock.now())).toEqual(sessions);
    // The notice goes with the session, or not at all.
    expect(await noticed()).toEqual([]);
  });

  it('a signup ends as a sign-in from its own device: no notice, and a session its client holds is not ended', async () => {
    const { accounts, noticed, live } = setup();
    const grace = await accounts.signup({ ...ADA, email: 'grace@example.com' }, { clientIp: '192.0.2.1' });
    const signedUp = await accounts.signup(ADA, { clientIp: '192.0.2.1', sessionToken: grace.session.token });
    expect([await live(grace.session.token), await live(signedUp.session.token)]).toEqual(['grace@example.com', ADA.email]);
    expect(await noticed()).toEqual([]);
  });
});
