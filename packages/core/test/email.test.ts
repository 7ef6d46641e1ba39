/**
 * The address and name use cases on the memory store: the mails each writes (to whom, with which
 * link), their switches, and what each refuses.
 */
import { describe, expect, it } from 'vitest';
import { EmailTaken, Pbkdf2PasswordHasher, RateLimited, SignInRequired, Unauthenticated, ValidationError, WrongPassword, createAccounts, type AccountsOptions, type QueuedMail } from '@sl-accounts/service/core';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { ManualClock, signedInAtOnce } from '@sl-accounts/service/core/testing';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse' };
let ip = 0;
const meta = (sessionToken: string | null = null) => ({ clientIp: `203.0.113.${++ip % 250}`, userAgent: 'Test/1', sessionToken });

function setup(options: AccountsOptions = {}) {
  const store = createMemoryStore();
  const clock = new ManualClock();
  /** The hasher, counting the passwords it checked; the next check waits for `gate` when one is set. */
  const hasher = Object.assign(new Pbkdf2PasswordHasher({ iterations: 1000 }), { verifications: 0, gate: undefined as Promise<void> | undefined });
  const verify = hasher.verify.bind(hasher);
  hasher.verify = async (password, hash) => {
    hasher.verifications++;
    const gate = hasher.gate;
    hasher.gate = undefined;
    await gate;
    return verify(password, hash);
  };
  const accounts = createAccounts({ store, hasher, clock }, { verifyUrl: 'https://app.example.org/verify', ...options });
  /** Every mail queued since the last call, claimed from the outbox. */
  const mails = async (): Promise<readonly QueuedMail[]> => store.outbox.claim(new Date(clock.now().getTime() + 1), { limit: 100, leaseMs: 3_600_000 });
  /** Signs `user` up and, when `verified`, follows the verification link: the owner proved the address. */
  const signUp = async (user: typeof ADA, verified: boolean) => {
    const signedUp = await accounts.signup(user, meta());
    const [link] = await mails();
    if (verified) await accounts.confirmEmail({ token: tokenOf(link!) }, meta(signedUp.session.token));
    return signedUp;
  };
  return { store, clock, accounts, mails, hasher, signUp };
}
const tokenOf = (mail: QueuedMail) => new URL(/https?:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token')!;

describe('the address and the name', () => {
  it('a change of address writes the link to the new address and the notice to the old one (the owner’s mail once the owner verified it); with that notice off, the link only', async () => {
    for (const [securityNotices, verified] of [[undefined, true], [undefined, false], [{ 'email-change-requested': false }, true]] as const) {
      const { accounts, mails, signUp } = setup(securityNotices ? { securityNotices } : {});
      const { session } = await signUp(ADA, verified);
      await accounts.requestEmailChange({ newEmail: 'new@example.org', password: ADA.password }, meta(session.token));
      const written = await mails();
      expect(written.map((m) => [m.to, m.kind]).sort(), `verified: ${verified}`).toEqual(
        securityNotices ? [['new@example.org', 'unverified']] : [['ada@example.com', verified ? 'security' : 'unverified'], ['new@example.org', 'unverified']],
      );
      const toNew = written.find((m) => m.to === 'new@example.org')!;
      const link = new URL(/https?:\/\/\S+/.exec(toNew.text)![0]);
      expect(link.origin + link.pathname).toBe('https://app.example.org/verify');
      expect(Buffer.from(tokenOf(toNew), 'base64url')).toHaveLength(32);
    }
  });

  it('the confirmed change notifies both addresses (each notice can be turned off); every notice says when, from where and with what', async () => {
    const { accounts, mails, signUp } = setup();
    const { session } = await signUp(ADA, true);
    await accounts.requestEmailChange({ newEmail: 'new@example.org', password: ADA.password }, meta(session.token));
    const link = (await mails()).find((m) => m.to === 'new@example.org');
    const done = await accounts.confirmEmail({ token: tokenOf(link!) }, { clientIp: '198.51.100.9', userAgent: 'Confirming/2', sessionToken: session.token });
    expect(done.user).toMatchObject({ email: 'new@example.org', emailVerified: true });
    expect(done.purpose).toBe('change');
    const notices = await mails();
    expect(notices.map((m) => m.to).sort()).toEqual(['ada@example.com', 'new@example.org']);
    for (const notice of notices) {
      expect(notice.subject).toBe('[sl-accounts] Your address was changed');
      expect(notice.text).toContain('IP address:  198.51.100.9');
      expect(notice.text).toContain('User agent:  Confirming/2');
      expect(notice.text).toMatch(/When: +\d{4}-\d\d-\d\dT/);
    }
    const off = setup({ securityNotices: { 'email-changed': false } });
    const ada = await off.signUp(ADA, true);
    await off.accounts.requestEmailChange({ newEmail: 'new@example.org', password: ADA.password }, meta(ada.session.token));
    const offLink = (await off.mails()).find((m) => m.to === 'new@example.org');
    await off.accounts.confirmEmail({ token: tokenOf(offLink!) }, meta(ada.session.token));
    expect(await off.mails()).toEqual([]);
  });

  it('a confirmed change of an account whose address nobody verified tells the new address only: the old one may be whoever’s a signup or a typo named', async () => {
    const { accounts, mails, signUp } = setup();
    const { session } = await signUp(ADA, false);
    await accounts.requestEmailChange({ newEmail: 'new@example.org', password: ADA.password }, meta(session.token));
    const link = (await mails()).find((m) => m.to === 'new@example.org');
    // Pressed by the new inbox without the account's session: it moves nothing (it proves the inbox, not who holds the account).
    await expect(accounts.confirmEmail({ token: tokenOf(link!) }, meta())).rejects.toBeInstanceOf(SignInRequired);
    expect(await mails()).toEqual([]);
    await accounts.confirmEmail({ token: tokenOf(link!) }, meta(session.token));
    expect((await mails()).map((m) => [m.to, m.subject, m.kind])).toEqual([['new@example.org', '[sl-accounts] Your address was changed', 'security']]);
  });

  it('refuses a change to the account’s own address, to a taken one, and with a wrong password (counted per session)', async () => {
    // Room for every request in the account's links, so the session's password checks are what limits.
    const { accounts } = setup({ accountLoginLimit: { limit: 2, windowMs: 60_000 }, emailLinkLimit: { limit: 10, windowMs: 60_000 } });
    const { session } = await accounts.signup(ADA, meta());
    await accounts.signup({ ...ADA, email: 'grace@example.com' }, meta());
    await expect(accounts.requestEmailChange({ newEmail: ' Ada@Example.com', password: ADA.password }, meta(session.token))).rejects.toBeInstanceOf(ValidationError);
    await expect(accounts.requestEmailChange({ newEmail: 'grace@example.com', password: ADA.password }, meta(session.token))).rejects.toBeInstanceOf(EmailTaken);
    for (let i = 0; i < 2; i++) await expect(accounts.requestEmailChange({ newEmail: 'new@example.org', password: 'wrong' }, meta(session.token))).rejects.toBeInstanceOf(WrongPassword);
    await expect(accounts.requestEmailChange({ newEmail: 'new@example.org', password: ADA.password }, meta(session.token))).rejects.toBeInstanceOf(RateLimited);
  });

  it('counts every change request against the account’s links before the password or the address is checked: no more than the limit of addresses tested an hour', async () => {
    const { accounts, hasher } = setup({ emailLinkLimit: { limit: 3, windowMs: 60_000 } });
    const { session } = await accounts.signup(ADA, meta());
    await accounts.signup({ ...ADA, email: 'grace@example.com' }, meta());
    for (let i = 0; i < 3; i++) await expect(accounts.requestEmailChange({ newEmail: 'grace@example.com', password: ADA.password }, meta(session.token))).rejects.toBeInstanceOf(EmailTaken);
    const verified = hasher.verifications;
    // Over the limit: refused before the password is hashed, for a taken and a free address alike.
    for (const newEmail of ['grace@example.com', 'free@example.org']) {
      await expect(accounts.requestEmailChange({ newEmail, password: ADA.password }, meta(session.token))).rejects.toBeInstanceOf(RateLimited);
    }
    expect(hasher.verifications).toBe(verified);
  });

  it('a change asked for while the owner changes the password stores no link and mails nothing: the request checked the old password', async () => {
    const { accounts, hasher, mails } = setup();
    const { session: thief } = await accounts.signup(ADA, meta());
    const { session: owner } = signedInAtOnce(await accounts.login(ADA, meta()));
    await mails();
    let release!: () => void;
    hasher.gate = new Promise<void>((resolve) => (release = resolve));
    const checked = hasher.verifications;
    const asked = accounts.requestEmailChange({ newEmail: 'thief@example.org', password: ADA.password }, meta(thief.token));
    // The request's check of the old password has begun, and waits.
    for (let turn = 0; hasher.verifications === checked; turn++) {
      if (turn > 1_000) throw new Error('the request never checked the password');
      await new Promise((resolve) => setImmediate(resolve));
    }
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: 'the owner took it back' }, meta(owner.token));
    release();
    await expect(asked).rejects.toBeInstanceOf(Unauthenticated);
    expect((await mails()).map((m) => m.subject)).toEqual(['[sl-accounts] Your password was changed']);
  });

  it('links to one new address from all accounts together stop at the inbox’s share; one account’s links leave room for another’s', async () => {
    const { accounts, mails } = setup({ emailLinkLimit: { limit: 2, windowMs: 60_000 }, inboxLimit: { limit: 3, windowMs: 60_000 } });
    const sessions = [];
    for (const n of [1, 2, 3]) sessions.push((await accounts.signup({ ...ADA, email: `user${n}@example.com` }, meta())).session.token);
    await mails();
    await accounts.requestEmailChange({ newEmail: 'victim@example.org', password: ADA.password }, meta(sessions[0]));
    await accounts.requestEmailChange({ newEmail: 'victim@example.org', password: ADA.password }, meta(sessions[0]));
    await accounts.requestEmailChange({ newEmail: 'victim@example.org', password: ADA.password }, meta(sessions[1]));
    await expect(accounts.requestEmailChange({ newEmail: 'victim@example.org', password: ADA.password }, meta(sessions[2]))).rejects.toBeInstanceOf(RateLimited);
    expect((await mails()).filter((m) => m.to === 'victim@example.org')).toHaveLength(3);
    await accounts.requestEmailChange({ newEmail: 'other@example.org', password: ADA.password }, meta(sessions[2]));
  });

  it('refuses an http(s)-less verifyUrl at creation', () => {
    expect(() => setup({ verifyUrl: 'ftp://example.org/verify' })).toThrow(RangeError);
  });
});
