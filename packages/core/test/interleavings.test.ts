/**
 * Check-then-act on an account, each race made exact (test/support/interleaving.ts pauses one store
 * call of a request while another request commits): a change whose session another change ended
 * changes nothing, a renewal of recovery codes holds only under the generation its proof read, a
 * provider's sign-in finds its identity still linked after it read the account, and the session
 * cache answers no lookup that began after a revocation from a read that began before it. Each case
 * failed before its fix (an attacker's review, 2026-12-07).
 */
import { describe, expect, it } from 'vitest';
import { digestToken } from '@sl-accounts/service/core';
import { meta, outcome, totpApp, world } from './support/interleaving.ts';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };
const NEW_PASSWORD = 'a brand new passphrase 42';
const OPERATOR = { operator: 'ops' };
const START = { redirectUri: 'http://localhost/api/sign-in/idp/callback', defaultReturnTo: '/' };
const ADA_AT_IDP = { issuer: 'https://idp.example', subject: 'ada-at-idp', email: ADA.email, emailVerified: true, name: 'Ada' };

/** The callback's meta for a started sign-in or link (the `state` the provider sends back). */
const callbackOf = (started: { readonly url: string; readonly stateToken: string }, code: string) => ({ ...meta(), stateToken: started.stateToken, query: `?state=${new URL(started.url).searchParams.get('state')}&code=${code}`, defaultReturnTo: '/' });

/** Ada signed up, with TOTP on: her session, her app and her recovery codes. */
async function adaWithTotp({ accounts, clock }: ReturnType<typeof world>) {
  const signedUp = await accounts.signup(ADA, meta());
  const session = signedUp.session.token;
  const app = totpApp((await accounts.startTotp({ password: ADA.password }, meta(session))).otpauthUri, clock);
  const { recoveryCodes } = await accounts.confirmTotp({ code: app.code() }, meta(session));
  return { userId: signedUp.user.id, session, app, recoveryCodes };
}

describe('a change whose session another change ended changes nothing', () => {
  it('a TOTP confirmation paused while the owner changes the password: TOTP stays off, the owner signs in with the new password alone', async () => {
    const { accounts, paused, clock, memory } = world();
    const signedUp = await accounts.signup(ADA, meta());
    // A thief holds this session and knew the old password: they start an enrolment with their own app.
    const thief = signedUp.session.token;
    const owner = (await accounts.login({ email: ADA.email, password: ADA.password }, meta())) as { session: { token: string } };
    const app = totpApp((await accounts.startTotp({ password: ADA.password }, meta(thief))).otpauthUri, clock);
    // The confirmation passes its session check, then waits before it reads the account.
    const pause = paused.pauseNext('users.findById', 'before');
    const confirming = outcome(accounts.confirmTotp({ code: app.code() }, meta(thief)));
    await pause.arrived;
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(owner.session.token));
    pause.release();
    // Told it is signed out (the change ended its session), not that the enrolment is void.
    expect(await confirming).toMatchObject({ ok: false, error: expect.stringContaining('Unauthenticated') });
    expect((await memory.totp.find(signedUp.user.id))?.enabled ?? false).toBe(false);
    expect(await memory.sessions.findWithUser(digestToken(owner.session.token))).not.toBeNull();
    const login = await accounts.login({ email: ADA.email, password: NEW_PASSWORD }, meta());
    expect('session' in login).toBe(true);
  });

  it('a TOTP confirmation paused while the operator locks the account: TOTP stays off', async () => {
    const { accounts, admin, paused, clock, memory } = world();
    const signedUp = await accounts.signup(ADA, meta());
    const session = signedUp.session.token;
    const app = totpApp((await accounts.startTotp({ password: ADA.password }, meta(session))).otpauthUri, clock);
    const pause = paused.pauseNext('users.findById', 'before');
    const confirming = outcome(accounts.confirmTotp({ code: app.code() }, meta(session)));
    await pause.arrived;
    await admin.lockAccount(signedUp.user.id, { reason: 'stolen session reported' }, OPERATOR);
    pause.release();
    expect((await confirming).ok).toBe(false);
    expect((await memory.totp.find(signedUp.user.id))?.enabled ?? false).toBe(false);
  });

  it('an unlink paused while the operator locks the account: the identity stays', async () => {
    const { accounts, admin, paused, idp, memory } = world();
    const signedUp = await accounts.signup(ADA, meta());
    const session = signedUp.session.token;
    const linkStart = await accounts.startIdentityLink('idp', { password: ADA.password }, { ...meta(session), ...START });
    idp.willAnswer(ADA_AT_IDP);
    expect(await accounts.finishProviderSignIn('idp', callbackOf(linkStart, 'c1'))).toMatchObject({ linked: 'idp' });
    // Paused before the proof reads the account: the lock moves the generation and ends the session first.
    const pause = paused.pauseNext('users.findById', 'before');
    const unlinking = outcome(accounts.unlinkIdentity('idp', { password: ADA.password }, meta(session)));
    await pause.arrived;
    await admin.lockAccount(signedUp.user.id, { reason: 'stolen session reported' }, OPERATOR);
    pause.release();
    expect((await unlinking).ok).toBe(false);
    expect(await memory.identities.listByUser(signedUp.user.id)).toHaveLength(1);
  });

  it('a link started by a session the operator then ended (every session) does not complete', async () => {
    const { accounts, admin, idp, memory } = world();
    const signedUp = await accounts.signup(ADA, meta());
    // A thief with the session and the password starts linking their own identity.
    const linkStart = await accounts.startIdentityLink('idp', { password: ADA.password }, { ...meta(signedUp.session.token), ...START });
    await admin.endSessions(signedUp.user.id, { reason: 'stolen session reported' }, OPERATOR);
    idp.willAnswer({ issuer: 'https://idp.example', subject: 'mallory-at-idp', email: 'mallory@example.com', emailVerified: true, name: 'Mallory' });
    expect(await accounts.finishProviderSignIn('idp', callbackOf(linkStart, 'c1'))).toMatchObject({ failure: 'sign_in_state_invalid' });
    expect(await memory.identities.listByUser(signedUp.user.id)).toHaveLength(0);
  });
});

describe('recovery codes are renewed only under the generation their proof read', () => {
  it('a renewal paused while the owner changes the password renews nothing: the owner keeps the codes they have', async () => {
    const w = world();
    const { accounts, paused, clock, memory } = w;
    const { userId, session, app, recoveryCodes } = await adaWithTotp(w);
    const owner = await accounts.loginSecondFactor({ recoveryCode: recoveryCodes[0]! }, { ...meta(), loginChallenge: ((await accounts.login({ email: ADA.email, password: ADA.password }, meta())) as { secondFactor: { token: string } }).secondFactor.token });
    clock.advance(60_000);
    // The renewal's proof read the account (and the password was right), then it waits.
    const pause = paused.pauseNext('users.findById', 'after');
    const renewing = outcome(accounts.renewRecoveryCodes({ password: ADA.password, code: app.code() }, meta(session)));
    await pause.arrived;
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(owner.session.token));
    pause.release();
    expect((await renewing).ok).toBe(false);
    // The owner's printed codes still work.
    const challenge = (await accounts.login({ email: ADA.email, password: NEW_PASSWORD }, meta())) as { secondFactor: { token: string } };
    expect((await outcome(accounts.loginSecondFactor({ recoveryCode: recoveryCodes[1]! }, { ...meta(), loginChallenge: challenge.secondFactor.token }))).ok).toBe(true);
    expect(await memory.recoveryCodes.count(userId)).toBe(8);
  });

  it('a renewal paused after its proof while the same session turns TOTP off leaves no codes behind', async () => {
    const w = world();
    const { accounts, paused, clock, memory } = w;
    const { userId, session, app } = await adaWithTotp(w);
    clock.advance(60_000);
    // The proof is done (the code stepped the session up); the renewal waits before its unit of work.
    const pause = paused.pauseNext('sessions.recordStepUp', 'after');
    const renewing = outcome(accounts.renewRecoveryCodes({ password: ADA.password, code: app.code() }, meta(session)));
    await pause.arrived;
    clock.advance(30_000);
    await accounts.disableTotp({ password: ADA.password, code: app.code() }, meta(session));
    pause.release();
    expect((await renewing).ok).toBe(false);
    expect(await memory.recoveryCodes.count(userId)).toBe(0);
  });

  it('a renewal paused while the operator removes the second factors leaves no codes behind', async () => {
    const w = world();
    const { accounts, admin, paused, clock, memory } = w;
    const { userId, session, app } = await adaWithTotp(w);
    clock.advance(60_000);
    const pause = paused.pauseNext('users.findById', 'after');
    const renewing = outcome(accounts.renewRecoveryCodes({ password: ADA.password, code: app.code() }, meta(session)));
    await pause.arrived;
    await admin.removeSecondFactors(userId, { reason: 'the owner lost the phone' }, OPERATOR);
    pause.release();
    expect((await renewing).ok).toBe(false);
    expect(await memory.recoveryCodes.count(userId)).toBe(0);
  });
});

it('a provider sign-in paused while the owner unlinks that identity gets no session', async () => {
  const { accounts, paused, idp, memory } = world();
  const signedUp = await accounts.signup(ADA, meta());
  const session = signedUp.session.token;
  const linkStart = await accounts.startIdentityLink('idp', { password: ADA.password }, { ...meta(session), ...START });
  idp.willAnswer(ADA_AT_IDP);
  await accounts.finishProviderSignIn('idp', callbackOf(linkStart, 'c1'));
  const before = (await memory.sessions.listByUser(signedUp.user.id, new Date(0))).length;
  // The callback found the identity linked and waits before it reads the account.
  const signInStart = await accounts.startProviderSignIn('idp', {}, { ...meta(), ...START });
  const pause = paused.pauseNext('users.findById', 'before');
  const callback = accounts.finishProviderSignIn('idp', callbackOf(signInStart, 'c2'));
  await pause.arrived;
  expect((await outcome(accounts.unlinkIdentity('idp', { password: ADA.password }, meta(session)))).ok).toBe(true);
  pause.release();
  expect(await callback).toMatchObject({ failure: 'identity_invalid' });
  expect((await memory.sessions.listByUser(signedUp.user.id, new Date(0))).length).toBe(before);
});

it('the session cache answers no lookup that began after a revocation from a store read that began before it', async () => {
  const { accounts, paused, memory } = world({ cache: true });
  const signedUp = await accounts.signup(ADA, meta());
  const ended = signedUp.session.token;
  const owner = (await accounts.login({ email: ADA.email, password: ADA.password }, meta())) as { session: { token: string } };
  // A request with the session whose store read is slow: it read the row, its answer is held.
  const pause = paused.pauseNext('sessions.findWithUser', 'after');
  const early = outcome(accounts.me(meta(ended)));
  await pause.arrived;
  await accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(owner.session.token));
  // A request that starts once the change has answered asks the store afresh.
  const late = outcome(accounts.updateProfile({ name: 'Renamed by an ended session' }, meta(ended)));
  expect(await late).toMatchObject({ ok: false, error: expect.stringContaining('Unauthenticated') });
  pause.release();
  // The early one began before the change: its answer may predate it (it changes nothing).
  expect((await early).ok).toBe(true);
  expect((await memory.users.findById(signedUp.user.id))?.name).toBe(ADA.name);
});

describe('a change that lost its race says which way it lost', () => {
  it('to a change of the same session: 409 account_changed, and the session stands; to one that ended it: 401', async () => {
    const { accounts, paused } = world();
    const signedUp = await accounts.signup(ADA, meta());
    const session = signedUp.session.token;
    // Two changes of the password from one session: the first read the account, then the second committed.
    let pause = paused.pauseNext('users.findById', 'after');
    const first = outcome(accounts.changePassword({ currentPassword: ADA.password, newPassword: 'first of two changes' }, meta(session)));
    await pause.arrived;
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(session));
    pause.release();
    expect(await first).toMatchObject({ ok: false, error: expect.stringContaining('AccountChanged') });
    expect((await outcome(accounts.me(meta(session)))).ok).toBe(true);
    // From another session, whose change ends this one: the loser is signed out, as it is.
    const other = (await accounts.login({ email: ADA.email, password: NEW_PASSWORD }, meta())) as { session: { token: string } };
    pause = paused.pauseNext('users.findById', 'after');
    const loser = outcome(accounts.changePassword({ currentPassword: NEW_PASSWORD, newPassword: 'the loser asked this' }, meta(session)));
    await pause.arrived;
    await accounts.changePassword({ currentPassword: NEW_PASSWORD, newPassword: 'the winner set this' }, meta(other.session.token));
    pause.release();
    expect(await loser).toMatchObject({ ok: false, error: expect.stringContaining('Unauthenticated') });
  });
});

describe('found in a second round (2026-12-07)', () => {
  it('two renewals of the recovery codes at once: one writes, the other answers account_changed, and the codes given out work', async () => {
    const w = world();
    const { accounts, paused } = w;
    const { session, recoveryCodes } = await adaWithTotp(w);
    // The first renewal's proof is done; the second runs whole meanwhile.
    const pause = paused.pauseNext('sessions.recordStepUp', 'after');
    const first = outcome(accounts.renewRecoveryCodes({ password: ADA.password, recoveryCode: recoveryCodes[0]! }, meta(session)));
    await pause.arrived;
    const second = await accounts.renewRecoveryCodes({ password: ADA.password, recoveryCode: recoveryCodes[1]! }, meta(session));
    pause.release();
    expect(await first).toMatchObject({ ok: false, error: expect.stringContaining('AccountChanged') });
    const challenge = (await accounts.login({ email: ADA.email, password: ADA.password }, meta())) as { secondFactor: { token: string } };
    expect((await outcome(accounts.loginSecondFactor({ recoveryCode: second.recoveryCodes[0]! }, { ...meta(), loginChallenge: challenge.secondFactor.token }))).ok).toBe(true);
  });

  it('a deletion and a change of address paused while the operator ends every session of the account change nothing', async () => {
    const { accounts, admin, paused, memory } = world();
    const signedUp = await accounts.signup(ADA, meta());
    for (const [what, ask] of [
      ['deletion', (token: string) => accounts.deleteAccount({ password: ADA.password }, meta(token))],
      ['change of address', (token: string) => accounts.requestEmailChange({ newEmail: 'thief@example.com', password: ADA.password }, meta(token))],
    ] as const) {
      const thief = ((await accounts.login({ email: ADA.email, password: ADA.password }, meta())) as { session: { token: string } }).session.token;
      // The password was read (and is right); the request waits while the owner has the operator end every session.
      const pause = paused.pauseNext('users.findById', 'after');
      const asked = outcome(ask(thief));
      await pause.arrived;
      await admin.endSessions(signedUp.user.id, { reason: 'a stolen session reported' }, OPERATOR);
      pause.release();
      expect([what, await asked]).toMatchObject([what, { ok: false, error: expect.stringContaining('Unauthenticated') }]);
    }
    expect(await memory.users.findById(signedUp.user.id)).toMatchObject({ email: ADA.email });
    // And no link went to the new address (the verification mail of the signup is Ada's own).
    const queued = await memory.outbox.claim(new Date(Date.now() + 86_400_000), { limit: 100, leaseMs: 1_000 });
    expect(queued.map((mail) => mail.to)).not.toContain('thief@example.com');
  });

  it("confirming an enrolment that was never started spends nothing of the account's bound on wrong codes", async () => {
    const w = world();
    const { accounts, clock } = w;
    const { session, app } = await adaWithTotp(w);
    // A session alone (a thief's) sends made-up codes to the confirmation, which has nothing to confirm.
    for (let i = 0; i < 12; i++) expect(await outcome(accounts.confirmTotp({ code: '000000' }, meta(session)))).toMatchObject({ ok: false, error: expect.stringContaining('TwoFactorState') });
    clock.advance(60_000);
    const challenge = (await accounts.login({ email: ADA.email, password: ADA.password }, meta())) as { secondFactor: { token: string } };
    expect((await outcome(accounts.loginSecondFactor({ code: app.code() }, { ...meta(), loginChallenge: challenge.secondFactor.token }))).ok).toBe(true);
  });
});

describe('found in a third round (2026-12-07)', () => {
  it('an enrolment started with the old password is void once the owner changed it, even from the session that started it', async () => {
    const { accounts, clock, memory } = world();
    const signedUp = await accounts.signup(ADA, meta());
    // A thief holds this session and knew the password; the owner, on the same session, changes it.
    const session = signedUp.session.token;
    const app = totpApp((await accounts.startTotp({ password: ADA.password }, meta(session))).otpauthUri, clock);
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(session));
    expect(await outcome(accounts.confirmTotp({ code: app.code() }, meta(session)))).toMatchObject({ ok: false, error: expect.stringContaining('TwoFactorState') });
    expect((await memory.totp.find(signedUp.user.id))?.enabled ?? false).toBe(false);
    expect('session' in (await accounts.login({ email: ADA.email, password: NEW_PASSWORD }, meta()))).toBe(true);
    // Started afresh under the new password, it turns on, and its codes sign in.
    const fresh = totpApp((await accounts.startTotp({ password: NEW_PASSWORD }, meta(session))).otpauthUri, clock);
    await accounts.confirmTotp({ code: fresh.code() }, meta(session));
    clock.advance(60_000);
    const challenge = (await accounts.login({ email: ADA.email, password: NEW_PASSWORD }, meta())) as { secondFactor: { token: string } };
    expect((await outcome(accounts.loginSecondFactor({ code: fresh.code() }, { ...meta(), loginChallenge: challenge.secondFactor.token }))).ok).toBe(true);
  });

  it("the operator's deletion paused while the owner changes the password reads the account again and deletes it", async () => {
    const { accounts, admin, paused, memory } = world();
    const signedUp = await accounts.signup(ADA, meta());
    const pause = paused.pauseNext('users.findById', 'after');
    const deleting = outcome(admin.deleteAccount(signedUp.user.id, { reason: 'asked by the owner' }, OPERATOR));
    await pause.arrived;
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(signedUp.session.token));
    pause.release();
    expect((await deleting).ok).toBe(true);
    expect(await memory.users.findById(signedUp.user.id)).toBeNull();
  });
});

it('a change relying on the step-up window whose session another change ended meanwhile is told it is signed out, not asked for a code', async () => {
  const w = world();
  const { accounts, paused } = w;
  const { session, recoveryCodes } = await adaWithTotp(w);
  const challenge = (await accounts.login({ email: ADA.email, password: ADA.password }, meta())) as { secondFactor: { token: string } };
  const owner = await accounts.loginSecondFactor({ recoveryCode: recoveryCodes[0]! }, { ...meta(), loginChallenge: challenge.secondFactor.token });
  // The session stepped up at the enrolment; its change read the account, then the owner's change ended it.
  const pause = paused.pauseNext('users.findById', 'after');
  const changing = outcome(accounts.changePassword({ currentPassword: ADA.password, newPassword: 'the thief wanted this' }, meta(session)));
  await pause.arrived;
  await accounts.changePassword({ currentPassword: ADA.password, newPassword: NEW_PASSWORD }, meta(owner.session.token));
  pause.release();
  expect(await changing).toMatchObject({ ok: false, error: expect.stringContaining('Unauthenticated') });
});

describe('found in a fifth round (2026-12-08)', () => {
  // Each request read its session and the account, then the operator's deletion committed before it
  // stored its single-use token: the SQL stores' foreign key refused the token (a 500), and the memory
  // store kept one of an account it no longer had. The store stores no token of a gone account, and
  // the request answers as one whose session has ended.
  it('a start of linking paused before it keeps its state, while the operator deletes the account: 401', async () => {
    const { accounts, admin, paused } = world();
    const signedUp = await accounts.signup(ADA, meta());
    const pause = paused.pauseNext('oneTimeTokens.put', 'before');
    const starting = outcome(accounts.startIdentityLink('idp', { password: ADA.password }, { ...meta(signedUp.session.token), ...START }));
    await pause.arrived;
    await admin.deleteAccount(signedUp.user.id, { reason: 'asked by the owner' }, OPERATOR);
    pause.release();
    expect(await starting).toMatchObject({ ok: false, error: expect.stringContaining('Unauthenticated') });
  });

  it('passkey registration options paused before their challenge is kept, while the operator deletes the account: 401', async () => {
    const { accounts, admin, paused } = world();
    const signedUp = await accounts.signup(ADA, meta());
    const pause = paused.pauseNext('oneTimeTokens.put', 'before');
    const asking = outcome(accounts.passkeyRegistrationOptions({ password: ADA.password }, meta(signedUp.session.token)));
    await pause.arrived;
    await admin.deleteAccount(signedUp.user.id, { reason: 'asked by the owner' }, OPERATOR);
    pause.release();
    expect(await asking).toMatchObject({ ok: false, error: expect.stringContaining('Unauthenticated') });
  });
});
