import { describe, expect, it } from 'vitest';
import { createAccounts, Pbkdf2PasswordHasher, randomTokens, SECURITY_EVENTS, securityNotices, WrongPassword, type AccountsOptions } from '@sl-accounts/service/core';
import { ManualClock, signedInAtOnce } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

const at = new Date('2031-03-01T12:00:00.000Z');
const notices = (enabled?: Parameters<typeof securityNotices>[0]['enabled']) =>
  securityNotices({ serviceName: 'svc', resetUrl: () => new URL('https://accounts.example.org/reset-password?lang=en'), now: () => at, enabled });
const meta = { clientIp: '::ffff:203.0.113.5', userAgent: 'Mozilla/5.0 (X11)' };

describe('securityNotices', () => {
  it('writes each event as security mail with what happened, when, the client address and user agent, and the reset page', () => {
    for (const event of SECURITY_EVENTS) {
      const mail = notices().notice(event, meta, { newEmail: 'new@example.org' });
      expect(mail, event).not.toBeNull();
      expect(mail!.kind).toBe('security');
      expect(mail!.subject).toMatch(/^\[svc\] /);
      expect(mail!.text).toContain('When:        2031-03-01T12:00:00.000Z\nIP address:  203.0.113.5\nUser agent:  Mozilla/5.0 (X11)\n');
      // The configured page as it is (its query too), and no token.
      // Not where a reset cannot help: a deleted account, and the address an account left (a reset from it no longer reaches the account).
      if (event !== 'account-deleted' && event !== 'email-changed') expect(mail!.text.split('\n')).toContain('https://accounts.example.org/reset-password?lang=en');
      expect(mail!.text).not.toContain('token');
    }
  });

  it('tells the address an account left to go to the operator, the address it moved to to reset, and the old address that a reset cancels a pending move', () => {
    const left = notices().notice('email-changed', meta, { newEmail: 'new@example.org' })!.text;
    expect(left).toContain("Tell the site's operator at once");
    expect(left).not.toContain('reset-password');
    const moved = notices().notice('email-changed', meta, { newEmail: 'new@example.org', toNewAddress: true })!.text;
    expect(moved).toMatch(/^The address of your svc account is now this one, new@example\.org/);
    expect(moved.split('\n')).toContain('https://accounts.example.org/reset-password?lang=en');
    expect(notices().notice('email-change-requested', meta, { newEmail: 'new@example.org' })!.text).toContain('cancels the change of address');
  });

  it('names the new address of a change of address', () => {
    expect(notices().notice('email-change-requested', meta, { newEmail: 'new@example.org' })!.text).toContain('new@example.org');
    expect(notices().notice('email-changed', meta, { newEmail: 'new@example.org' })!.text).toContain('new@example.org');
  });

  it('puts a user agent on one line, without reordering marks, bounded; an address that is none is "unknown"', () => {
    const mail = notices().notice('password-changed', { clientIp: 'not an ip', userAgent: `curl\r\nBcc: x@example.org\u202E${'a'.repeat(1000)}` })!;
    expect(mail.text).toContain('IP address:  unknown\n');
    const line = mail.text.split('\n').find((l) => l.startsWith('User agent:'))!;
    expect(line.startsWith('User agent:  curl Bcc: x@example.org')).toBe(true);
    expect(line.length).toBeLessThanOrEqual(13 + 300);
    expect(mail.text.split('\n').filter((l) => l.startsWith('Bcc'))).toEqual([]);
    expect(notices().notice('password-changed', { clientIp: '127.0.0.1' })!.text).toContain('User agent:  (none sent)\n');
  });

  it('answers null for an event turned off, and for every event when all are off', () => {
    const some = notices({ 'new-device-sign-in': false, 'password-changed': true });
    expect(some.enabled('new-device-sign-in')).toBe(false);
    expect(some.notice('new-device-sign-in', meta)).toBeNull();
    expect(some.notice('password-changed', meta)).not.toBeNull();
    for (const event of SECURITY_EVENTS) expect(notices(false).notice(event, meta)).toBeNull();
  });

  it('createAccounts refuses an unknown event with a RangeError', () => {
    expect(() => createAccounts({ store: createMemoryStore() }, { securityNotices: { 'password-change': false } as never })).toThrow(/securityNotices: unknown event password-change/);
  });
});

describe('the use cases queue each notice with its change', () => {
  const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse' };
  let n = 0;
  const from = (extra: object = {}) => ({ clientIp: `203.0.113.${++n}`, userAgent: `Agent/${n}`, ...extra });

  function setup(options: AccountsOptions = {}) {
    const store = createMemoryStore();
    const clock = new ManualClock();
    const accounts = createAccounts({ store, hasher: new Pbkdf2PasswordHasher({ iterations: 1000 }), clock, tokens: randomTokens }, options);
    const claim = () => store.outbox.claim(new Date(clock.now().getTime() + 1), { limit: 100, leaseMs: 60_000 });
    const queued = async () => (await claim()).map((m) => [m.to, m.subject]);
    /** Follows the verification link the last signup queued, signed in with `sessionToken`: the account's address is proven. */
    const verify = async (sessionToken: string) => {
      const link = (await claim()).findLast((m) => m.subject.startsWith('Confirm your address'))!;
      await accounts.confirmEmail({ token: new URL(/https?:\/\/\S+/.exec(link.text)![0]).searchParams.get('token')! }, from({ sessionToken }));
    };
    return { accounts, queued, claim, clock, verify };
  }

  it('a sign-in without the account’s device proof, a password change and a deletion each queue one notice to the account', async () => {
    const { accounts, queued } = setup();
    const signedUp = await accounts.signup(ADA, from());
    // The signup's own mail, the verification link, is no notice.
    expect(await queued()).toEqual([['ada@example.com', 'Confirm your address for sl-accounts']]);
    // The signup's client is a known device: no notice; a client without its proof is new.
    signedInAtOnce(await accounts.login(ADA, from({ deviceProof: signedUp.device.proof })));
    expect(await queued()).toEqual([]);
    const fresh = signedInAtOnce(await accounts.login(ADA, from()));
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: 'a new passphrase' }, from({ sessionToken: fresh.session.token }));
    await accounts.deleteAccount({ password: 'a new passphrase' }, from({ sessionToken: fresh.session.token }));
    expect(await queued()).toEqual([
      ['ada@example.com', '[sl-accounts] New sign-in to your account'],
      ['ada@example.com', '[sl-accounts] Your password was changed'],
      ['ada@example.com', '[sl-accounts] Your account was deleted'],
    ]);
  });

  it('a completed reset queues its notice to the account; a bad token queues nothing', async () => {
    const { accounts, queued, claim } = setup();
    await accounts.signup(ADA, from());
    await accounts.requestPasswordReset({ email: ADA.email }, from());
    await accounts.settled();
    const resetMail = (await claim()).find((m) => m.subject.startsWith('Reset your'));
    const token = new URL(/https?:\/\/\S+/.exec(resetMail!.text)![0]).searchParams.get('token')!;
    await expect(accounts.confirmPasswordReset({ token: `${token}x`, newPassword: 'a new passphrase' }, from())).rejects.toThrow();
    expect(await queued()).toEqual([]);
    await accounts.confirmPasswordReset({ token, newPassword: 'a new passphrase' }, from({ userAgent: 'Resetter/1' }));
    const [notice, ...rest] = (await claim()).filter((m) => m.subject.startsWith('[sl-accounts] '));
    expect(rest).toEqual([]);
    expect([notice!.to, notice!.subject]).toEqual(['ada@example.com', '[sl-accounts] Your password was reset']);
    expect(notice!.text).toContain('User agent:  Resetter/1\n');
    expect(notice!.text).not.toContain(token);
  });

  it('a failed check queues nothing; a notice that is off is not queued', async () => {
    const { accounts, queued } = setup({ securityNotices: { 'new-device-sign-in': false } });
    await accounts.signup(ADA, from());
    // The signup's own mail, the verification link, is no notice.
    expect(await queued()).toEqual([['ada@example.com', 'Confirm your address for sl-accounts']]);
    await expect(accounts.login({ ...ADA, password: 'wrong password' }, from())).rejects.toThrow();
    const fresh = signedInAtOnce(await accounts.login(ADA, from()));
    await expect(accounts.changePassword({ currentPassword: 'wrong one', newPassword: 'a new passphrase' }, from({ sessionToken: fresh.session.token }))).rejects.toBeInstanceOf(WrongPassword);
    await expect(accounts.deleteAccount({ password: 'wrong one' }, from({ sessionToken: fresh.session.token }))).rejects.toBeInstanceOf(WrongPassword);
    expect(await queued()).toEqual([]);
  });

  it('mails at most 3 new-device notices per account an hour; the logins beyond are let in, not mailed about; null lifts the bound', async () => {
    const NEW = ['ada@example.com', '[sl-accounts] New sign-in to your account'];
    const { accounts, queued, claim, clock } = setup();
    await accounts.signup(ADA, from());
    await queued();
    for (let i = 0; i < 5; i++) signedInAtOnce(await accounts.login(ADA, from()));
    expect(await queued()).toEqual([NEW, NEW, NEW]);
    // Other accounts have their own bound.
    await accounts.signup({ ...ADA, email: 'grace@example.com' }, from());
    signedInAtOnce(await accounts.login({ ...ADA, email: 'grace@example.com' }, from()));
    expect((await queued()).filter(([, subject]) => subject === NEW[1])).toEqual([['grace@example.com', NEW[1]]]);
    clock.advance(60 * 60_000);
    const hourLater = clock.now().getTime();
    signedInAtOnce(await accounts.login(ADA, from()));
    // Only what this hour queued (the mails claimed before are due again: their lease ran out).
    expect((await claim()).filter((m) => m.createdAt.getTime() >= hourLater).map((m) => [m.to, m.subject])).toEqual([NEW]);

    // Verified: the notices are the owner's mail, which no inbox's share (INBOX_LIMIT) bounds.
    const unbounded = setup({ newDeviceNoticeLimit: null });
    const signedUp = await unbounded.accounts.signup(ADA, from());
    await unbounded.verify(signedUp.session.token);
    for (let i = 0; i < 5; i++) await unbounded.accounts.login(ADA, from());
    expect(await unbounded.queued()).toEqual([NEW, NEW, NEW, NEW, NEW]);
  });

  it('with the per-account login limit off, a new device is still told', async () => {
    const { accounts, queued } = setup({ accountLoginLimit: null });
    const signedUp = await accounts.signup(ADA, from());
    // The signup's own mail, the verification link, is no notice.
    expect(await queued()).toEqual([['ada@example.com', 'Confirm your address for sl-accounts']]);
    signedInAtOnce(await accounts.login(ADA, from({ deviceProof: signedUp.device.proof })));
    signedInAtOnce(await accounts.login(ADA, from()));
    expect(await queued()).toEqual([['ada@example.com', '[sl-accounts] New sign-in to your account']]);
  });
});
