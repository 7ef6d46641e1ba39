// An embedder's tests of the account flows, written from docs/testing.md: in-process, the memory
// store, a ManualClock, the test hasher and a capturing mailer. No poll interval is set: `request`
// answers once the mail the request caused is with the mailer.
import { randomBytes } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secretBox } from '@sl-accounts/service/core';
import { captureMail, ManualClock, request, testHasher, type CapturedMail } from '@sl-accounts/service/http/testing';
import { createService, type Service } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';

interface User {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly emailVerified: boolean;
}
interface UserBody {
  readonly user: User;
}
interface ErrorBody {
  readonly ok: false;
  readonly error: string;
  readonly code?: string;
}
interface TotpBody {
  readonly otpauthUri: string;
  readonly secret: string;
}

const DAY = 24 * 60 * 60 * 1000;
const ada = { name: 'Ada', email: 'ada@example.com', password: 'correct horse' };

let clock: ManualClock;
let mailbox: CapturedMail;
let service: Service;
beforeEach(async () => {
  clock = new ManualClock();
  mailbox = captureMail();
  service = await createService({ store: createMemoryStore(), clock, hasher: testHasher, mailer: mailbox, accounts: { secrets: secretBox(randomBytes(32)) } });
});
afterEach(() => service.close());

const signup = (who = ada) => request<UserBody>(service.api, 'POST /api/signup', { json: who });
const login = (who: { email: string; password: string } = ada) => request<UserBody>(service.api, 'POST /api/login', { json: who });
const me = (cookie: Readonly<Record<string, string>>) => request<UserBody>(service.api, 'GET /api/me', { cookie });
const tokenIn = (to: string) => mailbox.link(to)?.searchParams.get('token') ?? '';
/** Confirms a mailed link; with `cookie`, from the browser signed in to the account (a link counts only with one of its sessions). */
const confirm = (token: string, cookie?: Readonly<Record<string, string>>) => request<ErrorBody>(service.api, 'POST /api/email-verification/confirm', { json: { token }, ...(cookie ? { cookie } : {}) });

describe('signup', () => {
  it('creates the account, signed in, its address not yet verified', async () => {
    const answer = await signup();
    expect(answer.status).toBe(201);
    expect(answer.json.user).toMatchObject({ name: 'Ada', email: ada.email, emailVerified: false });
    expect(answer.cookies.sl_session).toBeTruthy();
  });

  it('mails a verification link to the new address', async () => {
    await signup();
    expect(mailbox.mails.map((mail) => mail.to)).toEqual([ada.email]);
    expect(mailbox.link(ada.email)?.pathname).toBe('/verify-email');
    expect(tokenIn(ada.email)).not.toBe('');
  });

  it('refuses a second account with the same address, and mails nothing more', async () => {
    await signup();
    const again = await request<ErrorBody>(service.api, 'POST /api/signup', { json: { ...ada, name: 'Eve' } });
    expect(again.status).toBe(409);
    expect(again.json.ok).toBe(false);
    expect(mailbox.mails).toHaveLength(1);
  });

  it('refuses a short password with a 400 that says why', async () => {
    const answer = await request<ErrorBody>(service.api, 'POST /api/signup', { json: { ...ada, password: 'short' } });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatch(/password/i);
    expect(mailbox.mails).toEqual([]);
  });

  it('lets the new account log in with its password, and not with another', async () => {
    await signup();
    expect((await login()).status).toBe(200);
    expect((await login({ email: ada.email, password: 'wrong horse' })).status).toBe(401);
  });
});

describe('verification', () => {
  it('the mailed token verifies the address', async () => {
    const { cookies } = await signup();
    // Without the account's session nothing changes: the link proves the inbox, not who holds the account.
    const unsigned = await confirm(tokenIn(ada.email));
    expect(unsigned.status).toBe(403);
    expect(unsigned.json.code).toBe('sign_in_required');
    expect((await me(cookies)).json.user.emailVerified).toBe(false);
    expect((await confirm(tokenIn(ada.email), cookies)).status).toBe(200);
    expect((await me(cookies)).json.user.emailVerified).toBe(true);
  });

  it('a token works once', async () => {
    const { cookies } = await signup();
    const token = tokenIn(ada.email);
    expect((await confirm(token, cookies)).status).toBe(200);
    expect((await confirm(token, cookies)).status).toBe(400);
  });

  it('a made-up token is refused', async () => {
    await signup();
    const answer = await request<ErrorBody>(service.api, 'POST /api/email-verification/confirm', { json: { token: 'not-a-token' } });
    expect(answer.status).toBe(400);
    expect(answer.json.ok).toBe(false);
  });

  it('asking again mails a fresh link, and the new one verifies', async () => {
    const { cookies } = await signup();
    const first = tokenIn(ada.email);
    expect((await request(service.api, 'POST /api/email-verification', { cookie: cookies, headers: { origin: 'http://localhost' } })).status).toBe(202);
    expect(mailbox.mails).toHaveLength(2);
    const second = tokenIn(ada.email);
    expect(second).not.toBe(first);
    expect((await confirm(second, cookies)).status).toBe(200);
  });
});

describe('change of address', () => {
  const change = (cookies: Readonly<Record<string, string>>, newEmail: string, password = ada.password) =>
    request<ErrorBody>(service.api, 'POST /api/email', { cookie: cookies, json: { newEmail, password } });

  it('mails a link to the new address and a notice to the old one', async () => {
    const { cookies } = await signup();
    expect((await change(cookies, 'ada@new.example')).status).toBe(202);
    expect(mailbox.last('ada@new.example')?.text).toContain('http');
    expect(mailbox.mails.filter((mail) => mail.to === ada.email)).toHaveLength(2);
  });

  it('moves the address only when the link is confirmed', async () => {
    const { cookies } = await signup();
    await change(cookies, 'ada@new.example');
    expect((await me(cookies)).json.user.email).toBe(ada.email);
    expect((await confirm(tokenIn('ada@new.example'), cookies)).status).toBe(200);
    const again = await login({ email: 'ada@new.example', password: ada.password });
    expect((await me(again.cookies)).json.user).toMatchObject({ email: 'ada@new.example', emailVerified: true });
  });

  it('the new address logs in afterwards, the old one no more', async () => {
    const { cookies } = await signup();
    await change(cookies, 'ada@new.example');
    await confirm(tokenIn('ada@new.example'), cookies);
    expect((await login({ email: 'ada@new.example', password: ada.password })).status).toBe(200);
    expect((await login()).status).toBe(401);
  });

  it('needs the current password', async () => {
    const { cookies } = await signup();
    expect((await change(cookies, 'ada@new.example', 'wrong horse')).status).toBe(403);
    expect(mailbox.last('ada@new.example')).toBeUndefined();
  });
});

describe('expiry, with the ManualClock', () => {
  it('a session lasts 7 days', async () => {
    const { cookies } = await signup();
    clock.advance(7 * DAY - 60_000);
    expect((await me(cookies)).status).toBe(200);
    clock.advance(120_000);
    expect((await me(cookies)).status).toBe(401);
  });

  it('a verification link expires', async () => {
    await signup();
    const token = tokenIn(ada.email);
    clock.advance(8 * DAY);
    // Refused even from a browser signed in to the account now.
    const { cookies } = await login();
    expect((await confirm(token, cookies)).status).toBe(400);
  });

  it('a reset link mailed on request resets the password, once', async () => {
    await signup();
    expect((await request(service.api, 'POST /api/password-reset', { json: { email: ada.email } })).status).toBe(202);
    const token = tokenIn(ada.email);
    const reset = (newPassword: string) => request(service.api, 'POST /api/password-reset/confirm', { json: { token, newPassword } });
    expect((await reset('a new horse battery')).status).toBe(200);
    expect((await reset('yet another horse')).status).toBe(400);
    expect((await login({ email: ada.email, password: 'a new horse battery' })).status).toBe(200);
  });
});

describe('TOTP, with otpauth', () => {
  /** Signs up and turns TOTP on; gives the session and the authenticator app's generator. */
  async function enrolled() {
    const { cookies } = await signup();
    const start = await request<TotpBody>(service.api, 'POST /api/two-factor/totp', { cookie: cookies, json: { password: ada.password } });
    expect(start.status).toBe(200);
    const totp = OTPAuth.URI.parse(start.json.otpauthUri) as OTPAuth.TOTP;
    const code = () => totp.generate({ timestamp: clock.now().getTime() });
    const confirmed = await request(service.api, 'POST /api/two-factor/totp/confirm', { cookie: cookies, json: { code: code() } });
    expect(confirmed.status).toBe(200);
    return { cookies, code };
  }

  it('enrolment gives an otpauth URI whose secret is the one shown', async () => {
    const { cookies } = await signup();
    const start = await request<TotpBody>(service.api, 'POST /api/two-factor/totp', { cookie: cookies, json: { password: ada.password } });
    expect((OTPAuth.URI.parse(start.json.otpauthUri) as OTPAuth.TOTP).secret.base32).toBe(start.json.secret);
  });

  it('a login then asks for the code, and the code signs in', async () => {
    const { code } = await enrolled();
    clock.advance(60_000);
    const first = await login();
    expect(first.status).toBe(202);
    const second = await request<UserBody>(service.api, 'POST /api/login/second-factor', { cookie: first.cookies, json: { code: code() } });
    expect(second.status).toBe(200);
    expect(second.json.user.email).toBe(ada.email);
  });

  it('a wrong code is refused', async () => {
    await enrolled();
    const first = await login();
    const wrong = await request<ErrorBody>(service.api, 'POST /api/login/second-factor', { cookie: first.cookies, json: { code: '000000' } });
    expect(wrong.status).toBe(401);
  });

  it('turning it on mails a security notice', async () => {
    await enrolled();
    expect(mailbox.mails.length).toBeGreaterThan(1);
    expect(mailbox.last(ada.email)?.subject).toMatch(/two-factor/i);
  });
});
