/**
 * The password reset use cases on the memory store: the mail queued with the token, its link, the
 * token's single use and lifetime, and what the reset ends.
 */
import { describe, expect, it } from 'vitest';
import { Pbkdf2PasswordHasher, RESET_TOKEN_TTL_MS, Unauthenticated, ValidationError, createAccountManager, createAccounts, digestToken, randomTokens, type QueuedMail } from '@sl-accounts/service/core';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { ManualClock, signedInAtOnce } from '@sl-accounts/service/core/testing';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse' };
const NEW_PASSWORD = 'a new and longer passphrase';
let ip = 0;
const meta = (sessionToken: string | null = null) => ({ clientIp: `203.0.113.${++ip % 250}`, sessionToken });

function setup(resetUrl = 'https://accounts.example.org/reset-password') {
  const store = createMemoryStore();
  const clock = new ManualClock();
  const accounts = createAccounts({ store, hasher: new Pbkdf2PasswordHasher({ iterations: 1000 }), clock, tokens: randomTokens }, { resetUrl });
  /** Every mail queued so far, claimed from the outbox. */
  const mails = async (): Promise<readonly QueuedMail[]> => {
    await accounts.settled();
    return store.outbox.claim(new Date(clock.now().getTime() + 1), { limit: 100, leaseMs: 3_600_000 });
  };
  return { store, clock, accounts, mails };
}

const tokenOf = (mail: QueuedMail) => new URL(/https?:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token')!;

describe('password reset', () => {
  it('mails a registered address a link on the configured page with a 32-byte token stored only as a digest', async () => {
    const { accounts, mails, store, clock } = setup('https://accounts.example.org/account/reset?lang=en');
    await accounts.signup(ADA, meta());
    // The signup's own mail: the link that verifies the address.
    expect((await mails()).map((mail) => mail.subject)).toEqual(['Confirm your address for sl-accounts']);
    await accounts.requestPasswordReset({ email: 'nobody@example.com' }, meta());
    expect(await mails()).toEqual([]);
    await accounts.requestPasswordReset({ email: ' ADA@Example.com ' }, meta());
    const [mail, ...rest] = await mails();
    expect(rest).toEqual([]);
    expect(mail!.to).toBe('ada@example.com');
    const link = new URL(/https?:\/\/\S+/.exec(mail!.text)![0]);
    expect(link.origin + link.pathname).toBe('https://accounts.example.org/account/reset');
    expect(link.searchParams.get('lang')).toBe('en');
    const token = link.searchParams.get('token')!;
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    // Not kept as it is: only its digest opens the account.
    const manager = createAccountManager(store);
    expect(await manager.completeReset(token, clock.now(), 'x')).toBeNull();
    expect(await manager.completeReset(digestToken(token), clock.now(), '$pbkdf2-sha256$i=1$YQ$YQ')).not.toBeNull();
  });

  it('the token sets the password once, ends every session, and the old password no longer works', async () => {
    const { accounts, mails } = setup();
    const first = await accounts.signup(ADA, meta());
    const second = signedInAtOnce(await accounts.login(ADA, meta()));
    await accounts.requestPasswordReset({ email: ADA.email }, meta());
    // Beside the notice of the login's new device.
    const token = tokenOf((await mails()).find((mail) => mail.subject.startsWith('Reset your'))!);
    await accounts.confirmPasswordReset({ token, newPassword: NEW_PASSWORD }, meta());
    for (const s of [first, second]) await expect(accounts.me(meta(s.session.token))).rejects.toBeInstanceOf(Unauthenticated);
    await expect(accounts.login(ADA, meta())).rejects.toThrow();
    await expect(accounts.login({ email: ADA.email, password: NEW_PASSWORD }, meta())).resolves.toBeDefined();
    const again = accounts.confirmPasswordReset({ token, newPassword: 'yet another passphrase' }, meta());
    await expect(again).rejects.toBeInstanceOf(ValidationError);
    await expect(again).rejects.toMatchObject({ issues: [{ path: 'token' }] });
  });

  it('a token expires after 30 minutes, and a newer request replaces it', async () => {
    const { accounts, mails, clock } = setup();
    await accounts.signup(ADA, meta());
    await accounts.requestPasswordReset({ email: ADA.email }, meta());
    const old = tokenOf((await mails())[0]!);
    await accounts.requestPasswordReset({ email: ADA.email }, meta());
    const fresh = tokenOf((await mails())[0]!);
    await expect(accounts.confirmPasswordReset({ token: old, newPassword: NEW_PASSWORD }, meta())).rejects.toBeInstanceOf(ValidationError);
    clock.advance(RESET_TOKEN_TTL_MS);
    await expect(accounts.confirmPasswordReset({ token: fresh, newPassword: NEW_PASSWORD }, meta())).rejects.toBeInstanceOf(ValidationError);
    await expect(accounts.login(ADA, meta())).resolves.toBeDefined();
    expect((await accounts.sweep()).resetTokens).toBe(1);
  });

  it('a store failure after the answer reaches onBackgroundError, not the caller', async () => {
    const store = createMemoryStore();
    const errors: unknown[] = [];
    // The token's write fails (the read before it succeeds).
    const failing = { ...store, oneTimeTokens: { ...store.oneTimeTokens, put: () => Promise.reject(new Error('store down')) } };
    const accounts = createAccounts(
      { store: failing, hasher: new Pbkdf2PasswordHasher({ iterations: 1000 }), clock: new ManualClock(), tokens: randomTokens },
      { onBackgroundError: (e) => errors.push(e) },
    );
    // The per-address bound shows only in a refusal: it counts slots, and what is left of them is not known without asking each.
    await expect(accounts.requestPasswordReset({ email: ADA.email }, meta())).resolves.toEqual({
      limits: [expect.objectContaining({ policy: 'passwordReset' })],
    });
    await accounts.settled();
    expect(errors).toEqual([new Error('store down')]);
  });
});
