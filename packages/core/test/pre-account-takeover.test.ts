/**
 * A pre-account takeover: someone makes an account with another person's address and adds ways in
 * before the address is proven. The inbox's owner must be able to take the account, whether they
 * reset its password at once or first press the verification link mailed to them (an attacker's
 * review, 2026-12-08: a TOTP factor or passkey added by the maker outlived the reset, and a
 * verification click made the account keep them for good). On the memory store: what it relies on
 * of a store is the contract's.
 */
import { describe, expect, it } from 'vitest';
import { SignInRequired, ValidationError } from '@sl-accounts/service/core';
import { signedInAtOnce } from '@sl-accounts/service/core/testing';
import { meta, outcome, totpApp, world } from './support/interleaving.ts';

const VICTIM = { name: 'Vic', email: 'vic@example.com', password: 'the maker chose this' };
const OWNER_PASSWORD = 'the inbox owner chose this';

/** The token of the newest mail to `to` whose subject starts with `subject`. */
async function linkOf(w: ReturnType<typeof world>, to: string, subject: string): Promise<string> {
  await w.accounts.settled();
  const mails = await w.memory.outbox.claim(new Date(w.clock.now().getTime() + 86_400_000), { limit: 100, leaseMs: 1_000 });
  const mail = mails.filter((m) => m.to === to && m.subject.startsWith(subject)).at(-1);
  if (!mail) throw new Error(`no mail "${subject}" to ${to}`);
  return new URL(/https?:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token')!;
}

/** The maker signs up with the victim's address and turns TOTP on; the account and the maker's session. */
async function madeWithTotp(w: ReturnType<typeof world>) {
  const signedUp = await w.accounts.signup(VICTIM, meta());
  const session = signedUp.session.token;
  const app = totpApp((await w.accounts.startTotp({ password: VICTIM.password }, meta(session))).otpauthUri, w.clock);
  await w.accounts.confirmTotp({ code: app.code() }, meta(session));
  return { userId: signedUp.user.id, session };
}

/** The inbox's owner resets the password through the mailed link. */
async function reset(w: ReturnType<typeof world>) {
  await w.accounts.requestPasswordReset({ email: VICTIM.email }, meta());
  await w.accounts.confirmPasswordReset({ token: await linkOf(w, VICTIM.email, 'Reset your'), newPassword: OWNER_PASSWORD }, meta());
}

describe('the inbox’s owner takes an account someone else made with their address', () => {
  it('a reset of the unverified account removes the maker’s second factors: the owner signs in with the new password alone', async () => {
    const w = world();
    const { userId } = await madeWithTotp(w);
    await reset(w);
    const login = signedInAtOnce(await w.accounts.login({ email: VICTIM.email, password: OWNER_PASSWORD }, meta()));
    expect(login.user.emailVerified).toBe(true);
    expect(await w.memory.totp.find(userId)).toBeNull();
    expect(await w.memory.recoveryCodes.count(userId)).toBe(0);
  });

  it('the verification link without the account’s session verifies nothing and stays usable; the owner’s reset then still removes the factors', async () => {
    const w = world();
    const { userId, session } = await madeWithTotp(w);
    // The maker has a link mailed under the current generation (TOTP on voided the signup's), to the victim's inbox.
    await w.accounts.resendVerification(meta(session));
    const verification = await linkOf(w, VICTIM.email, 'Confirm your address');
    expect(await outcome(w.accounts.confirmEmail({ token: verification }, meta()))).toEqual({ ok: false, error: `SignInRequired: ${new SignInRequired().message}` });
    // Nothing changed, the link included: the same link still asks for the session.
    expect(await outcome(w.accounts.confirmEmail({ token: verification }, meta()))).toEqual({ ok: false, error: `SignInRequired: ${new SignInRequired().message}` });
    expect((await w.memory.users.findById(userId))?.emailVerified).toBe(false);
    await reset(w);
    expect((await w.memory.totp.find(userId)) ?? null).toBeNull();
    signedInAtOnce(await w.accounts.login({ email: VICTIM.email, password: OWNER_PASSWORD }, meta()));
    // The maker's session ended with the reset.
    expect((await outcome(w.accounts.me(meta(session)))).ok).toBe(false);
  });

  it('the verification link with the account’s own session verifies it (the maker is the inbox’s owner)', async () => {
    const w = world();
    const { userId, session } = await madeWithTotp(w);
    // TOTP on moved the generation, so the signup's link is void; a fresh one is mailed under the current one.
    await w.accounts.resendVerification(meta(session));
    const fresh = await linkOf(w, VICTIM.email, 'Confirm your address');
    // Presented after a stale cookie and another account's (a browser sends one per path that set one): the account's live one counts.
    const other = (await w.accounts.signup({ name: 'Other', email: 'other@example.com', password: 'another long one' }, meta())).session.token;
    expect((await w.accounts.confirmEmail({ token: fresh }, meta(null, { sessionToken: ['not-a-session-at-all', other, session] }))).user.emailVerified).toBe(true);
    expect((await w.memory.users.findById(userId))?.emailVerified).toBe(true);
  });

  it('a verification link mailed before a change of credential is void (a lock, here)', async () => {
    const w = world();
    const signedUp = await w.accounts.signup(VICTIM, meta());
    const verification = await linkOf(w, VICTIM.email, 'Confirm your address');
    await w.admin.lockAccount(signedUp.user.id, { reason: 'reported' }, { operator: 'ops' });
    await w.admin.unlockAccount(signedUp.user.id, {}, { operator: 'ops' });
    // The lock ended the sessions; the owner signs in again and presses the old link with the new session.
    const again = signedInAtOnce(await w.accounts.login({ email: VICTIM.email, password: VICTIM.password }, meta()));
    await expect(w.accounts.confirmEmail({ token: verification }, meta(again.session.token))).rejects.toBeInstanceOf(ValidationError);
    expect((await w.memory.users.findById(signedUp.user.id))?.emailVerified).toBe(false);
  });

  it('a verification pressed before the maker adds anything verifies nothing: the factors added after it go with the owner’s reset', async () => {
    const w = world();
    const signedUp = await w.accounts.signup(VICTIM, meta());
    const verification = await linkOf(w, VICTIM.email, 'Confirm your address');
    // The inbox's owner presses the link first: the account has only its maker's password, and still the link needs a session.
    expect(await outcome(w.accounts.confirmEmail({ token: verification }, meta()))).toEqual({ ok: false, error: `SignInRequired: ${new SignInRequired().message}` });
    expect((await w.memory.users.findById(signedUp.user.id))?.emailVerified).toBe(false);
    // The maker turns TOTP on after it; the owner's reset still finds the address unverified and removes it.
    const session = signedUp.session.token;
    const app = totpApp((await w.accounts.startTotp({ password: VICTIM.password }, meta(session))).otpauthUri, w.clock);
    await w.accounts.confirmTotp({ code: app.code() }, meta(session));
    await reset(w);
    signedInAtOnce(await w.accounts.login({ email: VICTIM.email, password: OWNER_PASSWORD }, meta()));
    expect(await w.memory.totp.find(signedUp.user.id)).toBeNull();
  });

  it('a move to someone else’s address pressed by that inbox without the account’s session moves nothing', async () => {
    const w = world();
    // The mover's own account, verified.
    const mover = await w.accounts.signup({ name: 'Mal', email: 'mal@example.com', password: 'the mover’s password' }, meta());
    await w.accounts.confirmEmail({ token: await linkOf(w, 'mal@example.com', 'Confirm your address') }, meta(mover.session.token));
    await w.accounts.requestEmailChange({ newEmail: VICTIM.email, password: 'the mover’s password' }, meta(mover.session.token));
    const move = await linkOf(w, VICTIM.email, 'Confirm your new address');
    expect(await outcome(w.accounts.confirmEmail({ token: move }, meta()))).toEqual({ ok: false, error: `SignInRequired: ${new SignInRequired().message}` });
    expect((await w.memory.users.findById(mover.user.id))?.email).toBe('mal@example.com');
    // The victim's address is still free: the victim signs up with it.
    expect((await w.accounts.signup({ ...VICTIM, password: OWNER_PASSWORD }, meta())).user.email).toBe(VICTIM.email);
  });
});
