/**
 * Signing in through an identity provider (issue 42), against a real OpenID Provider: `oidc-provider`
 * started in this process on loopback (test/support/oidc-provider.ts), its own login and consent
 * forms filled in by a cookie jar that follows its redirects. The service is called in-process
 * (`request`), as a host would hand it requests, on the memory store.
 */
// @module-tag socket
import { createHash } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { URI, type TOTP } from 'otpauth';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { createService, type Service } from '@sl-accounts/service';
import { request, testHasher, type TestAnswer } from '@sl-accounts/service/http/testing';
import { browse, startTestProvider, type TestProvider } from '../support/oidc-provider.ts';

const CALLBACK = 'http://localhost/api/sign-in/test/callback';
const MOUNTED_CALLBACK = 'http://localhost/accounts/api/sign-in/test/callback';

let provider: TestProvider;

beforeAll(async () => {
  provider = await startTestProvider([CALLBACK, MOUNTED_CALLBACK], {
    alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Liddell' },
    bob: { email: 'bob@example.com', email_verified: false, name: 'Bob' },
    gus: { email: 'gus@example.com', email_verified: false, name: 'Gus' },
    hal: { email: 'hal@example.com', email_verified: false, name: 'Hal' },
    carol: { email: 'carol@example.com', email_verified: true, name: 'Carol' },
    dave: { email: 'dave@example.com', email_verified: true, name: 'Dave' },
    erin: { email: 'erin@example.com', email_verified: true, name: 'Erin' },
    nomail: { name: 'No Mail' },
    victim: { email: 'victim@example.com', email_verified: true, name: 'Victim' },
    linker: { email: 'someone-else@example.com', email_verified: true, name: 'Linker' },
  });
});
afterAll(() => provider.close());

async function serviceWith(options: { basePath?: string; providerTimeoutMs?: number; issuer?: string } = {}): Promise<Service> {
  return createService({
    store: createMemoryStore(),
    hasher: testHasher,
    mcp: false,
    ...(options.basePath ? { basePath: options.basePath } : {}),
    accounts: {
      ...(options.providerTimeoutMs ? { providerTimeoutMs: options.providerTimeoutMs } : {}),
      identityProviders: [{ id: 'test', name: 'Test Provider', issuer: options.issuer ?? provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, allowHttp: true }],
    },
  });
}

/** A service on the memory store whose mails are kept, to read their links. */
async function serviceWithMails(): Promise<{ service: Service; mails: { to: string; text: string }[] }> {
  const mails: { to: string; text: string }[] = [];
  const service = await createService({
    store: createMemoryStore(),
    hasher: testHasher,
    mcp: false,
    mailer: { send: async (mail) => void mails.push({ to: mail.to, text: mail.text }) },
    identityProviders: [{ id: 'test', issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, allowHttp: true }],
  });
  return { service, mails };
}

/** Starts a sign-in; the answer, and its `sl_oauth` cookie. */
async function start(service: Service, body: object = {}, base = '', cookie?: Record<string, string>) {
  const started = await request<{ ok: boolean; url: string }>(service.api, `POST ${base}/api/sign-in/test`, { json: body, ...(cookie ? { cookie } : {}) });
  return { started, state: started.cookies.sl_oauth ?? '' };
}

/** The callback's request for a URL the provider sent the browser to. */
function callback(service: Service, url: URL, state: string | null): Promise<TestAnswer> {
  return request(service.api, `GET ${url.pathname}${url.search}`, state === null ? {} : { cookie: { sl_oauth: state } });
}

/** A whole sign-in as `login`: start, the provider's forms, the callback. */
async function signIn(service: Service, login: string, body: object = {}) {
  const { started, state } = await start(service, body);
  expect(started.status).toBe(200);
  const back = await browse(started.json.url, login);
  return { back, state, answer: await callback(service, back, state) };
}

const errorOf = (answer: TestAnswer) => new URL(answer.headers.get('location') ?? '', 'http://localhost').searchParams.get('error');

describe('sign-in through an OpenID Provider (oidc-provider on loopback)', () => {
  it('lists the configured providers', async () => {
    const service = await serviceWith();
    const listed = await request(service.api, 'GET /api/sign-in/providers');
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual({ ok: true, providers: [{ id: 'test', name: 'Test Provider' }] });
    await service.close();
  });

  it('starts with PKCE S256, state and nonce, and an sl_oauth cookie of at most 10 minutes under the mount', async () => {
    const service = await serviceWith();
    const { started } = await start(service, { returnTo: '/account' });
    expect(started.status).toBe(200);
    const url = new URL(started.json.url);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
    expect(url.searchParams.get('redirect_uri')).toBe(CALLBACK);
    const cookie = started.headers.getSetCookie().find((c) => c.startsWith('sl_oauth='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/api\/sign-in/);
    expect(Number(/Max-Age=(\d+)/.exec(cookie)?.[1])).toBeLessThanOrEqual(600);
    await service.close();
  });

  it('a first sign-in makes the account (verified as the provider asserts) and lands signed in at returnTo', async () => {
    const service = await serviceWith();
    const { answer } = await signIn(service, 'alice', { returnTo: '/welcome?x=1' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/welcome?x=1');
    expect(answer.cookies.sl_session).toBeTruthy();
    const me = await request<{ user: { email: string; name: string; emailVerified: boolean } }>(service.api, 'GET /api/me', { cookie: answer.cookies });
    expect(me.status).toBe(200);
    expect(me.json.user).toMatchObject({ email: 'alice@example.com', name: 'Alice Liddell', emailVerified: true });
    const identities = await request<{ identities: { provider: string; subject: string; email: string }[] }>(service.api, 'GET /api/me/identities', { cookie: answer.cookies });
    expect(identities.json.identities).toEqual([expect.objectContaining({ provider: 'test', subject: 'alice', email: 'alice@example.com' })]);
    // A second sign-in of the same identity signs in to the same account.
    const again = await signIn(service, 'alice');
    expect(again.answer.status).toBe(303);
    expect(again.answer.headers.get('location')).toBe('/');
    const meAgain = await request<{ user: { id: number } }>(service.api, 'GET /api/me', { cookie: again.answer.cookies });
    expect(meAgain.json.user.id).toBe((me.json.user as unknown as { id: number }).id);
    await service.close();
  });

  it('the callback leaves the device cookie at the sign-in’s path: the same browser’s next sign-in is no new device', async () => {
    const mails: string[] = [];
    const service = await createService({
      store: createMemoryStore(),
      hasher: testHasher,
      mcp: false,
      mailer: { send: async (mail) => void mails.push(mail.subject) },
      identityProviders: [{ id: 'test', issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, allowHttp: true }],
    });
    const first = await signIn(service, 'carol');
    const device = first.answer.headers.getSetCookie().filter((c) => c.startsWith('sl_device='));
    expect(device.some((c) => c.includes('Path=/api/sign-in;'))).toBe(true);
    const newDevice = () => mails.filter((subject) => /new sign-in/i.test(subject)).length;
    const before = newDevice();
    // Another sign-in from the same browser, which sends its device cookie to the callback.
    const { started, state } = await start(service, {}, '', { sl_device: first.answer.cookies.sl_device! });
    const back = await browse(started.json.url, 'carol');
    const again = await request(service.api, `GET ${back.pathname}${back.search}`, { cookie: { sl_oauth: state, sl_device: first.answer.cookies.sl_device! } });
    expect(again.cookies.sl_session).toBeTruthy();
    expect(newDevice()).toBe(before);
    // A browser without it is a new device: its owner is told.
    await signIn(service, 'carol');
    await expect.poll(newDevice).toBe(before + 1);
    await service.close();
  });

  it('an address the provider does not assert stays unverified', async () => {
    const service = await serviceWith();
    const { answer } = await signIn(service, 'bob');
    const me = await request<{ user: { emailVerified: boolean } }>(service.api, 'GET /api/me', { cookie: answer.cookies });
    expect(me.json.user.emailVerified).toBe(false);
    await service.close();
  });

  it('under a mount: the redirect URI, the cookie path and the default returnTo follow it', async () => {
    const service = await serviceWith({ basePath: '/accounts' });
    const { started, state } = await start(service, {}, '/accounts');
    expect(new URL(started.json.url).searchParams.get('redirect_uri')).toBe(MOUNTED_CALLBACK);
    expect(started.headers.getSetCookie().find((c) => c.startsWith('sl_oauth='))).toMatch(/Path=\/accounts\/api\/sign-in/);
    const back = await browse(started.json.url, 'carol');
    const answer = await callback(service, back, state);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/accounts/');
    expect((await request(service.api, 'GET /accounts/api/me', { cookie: answer.cookies })).status).toBe(200);
    await service.close();
  });

  it('a provider that gives no address is refused with email_missing', async () => {
    const service = await serviceWith();
    const { answer } = await signIn(service, 'nomail');
    expect(answer.status).toBe(303);
    expect(errorOf(answer)).toBe('email_missing');
    expect(answer.cookies.sl_session).toBeFalsy();
    await service.close();
  });
});

describe('accounts and linking (ADR 0056)', () => {
  it('never signs in or links by a matching address: a password account at the address is left alone (account_exists)', async () => {
    const service = await serviceWith();
    const signup = await request(service.api, 'POST /api/signup', { json: { name: 'Real Victim', email: 'victim@example.com', password: 'correct horse battery' } });
    expect(signup.status).toBe(201);
    const { answer } = await signIn(service, 'victim');
    expect(answer.status).toBe(303);
    expect(errorOf(answer)).toBe('account_exists');
    expect(answer.cookies.sl_session).toBeFalsy();
    const identities = await request<{ identities: unknown[] }>(service.api, 'GET /api/me/identities', { cookie: signup.cookies });
    expect(identities.json.identities).toEqual([]);
    await service.close();
  });

  it('the other direction: an account made through a provider keeps its address, and a signup with it is refused', async () => {
    const service = await serviceWith();
    const { answer } = await signIn(service, 'dave');
    expect(answer.cookies.sl_session).toBeTruthy();
    const signup = await request(service.api, 'POST /api/signup', { json: { name: 'Squatter', email: 'dave@example.com', password: 'correct horse battery' } });
    expect(signup.status).toBe(409);
    await service.close();
  });

  it('a reset through the inbox of an unverified provider account unlinks its identities (the inbox owner takes it)', async () => {
    const { service, mails } = await serviceWithMails();
    // bob's provider does not vouch for bob@example.com: the account is made, unverified.
    const first = await signIn(service, 'bob');
    expect(first.answer.cookies.sl_session).toBeTruthy();
    // The inbox's owner resets the password through the mailed link.
    expect((await request(service.api, 'POST /api/password-reset', { json: { email: 'bob@example.com' } })).status).toBe(202);
    const token = /token=([A-Za-z0-9_-]+)/.exec(mails.filter((m) => m.to === 'bob@example.com').at(-1)?.text ?? '')?.[1];
    expect(token).toBeTruthy();
    expect((await request(service.api, 'POST /api/password-reset/confirm', { json: { token, newPassword: 'the inbox owner now' } })).status).toBe(200);
    const login = await request(service.api, 'POST /api/login', { json: { email: 'bob@example.com', password: 'the inbox owner now' } });
    expect(login.status).toBe(200);
    expect((await request<{ identities: unknown[] }>(service.api, 'GET /api/me/identities', { cookie: login.cookies })).json.identities).toEqual([]);
    // The provider's identity opens nothing now: its address is an account's (account_exists).
    const again = await signIn(service, 'bob');
    expect(errorOf(again.answer)).toBe('account_exists');
    expect(again.answer.cookies.sl_session).toBeFalsy();
    await service.close();
  });

  it('the first verification of an unverified provider account needs its session: the inbox owner’s click verifies nothing, and their reset still unlinks the identity', async () => {
    const { service, mails } = await serviceWithMails();
    const tokenIn = (to: string) => /token=([A-Za-z0-9_-]+)/.exec(mails.filter((m) => m.to === to).at(-1)?.text ?? '')?.[1];
    // Someone whose provider does not vouch for gus@example.com makes the account; its verification link goes to gus's inbox.
    const attacker = (await signIn(service, 'gus')).answer.cookies;
    const link = tokenIn('gus@example.com');
    expect(link).toBeTruthy();
    // The inbox's owner confirms it in a browser of their own (no session of the account): refused, nothing verified, the link still good.
    const refused = await request<{ code: string }>(service.api, 'POST /api/email-verification/confirm', { json: { token: link } });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('sign_in_required');
    expect((await request<{ user: { emailVerified: boolean } }>(service.api, 'GET /api/me', { cookie: attacker })).json.user.emailVerified).toBe(false);
    // The inbox's owner resets instead: the account is still unverified, so the identity goes.
    expect((await request(service.api, 'POST /api/password-reset', { json: { email: 'gus@example.com' } })).status).toBe(202);
    expect((await request(service.api, 'POST /api/password-reset/confirm', { json: { token: tokenIn('gus@example.com'), newPassword: 'the inbox owner now' } })).status).toBe(200);
    const again = await signIn(service, 'gus');
    expect(errorOf(again.answer)).toBe('account_exists');
    expect(again.answer.cookies.sl_session).toBeFalsy();
    await service.close();
  });

  it('the first verification of a provider account with its own session in the cookie verifies it', async () => {
    const { service, mails } = await serviceWithMails();
    const owner = (await signIn(service, 'hal')).answer.cookies;
    const link = /token=([A-Za-z0-9_-]+)/.exec(mails.filter((m) => m.to === 'hal@example.com').at(-1)?.text ?? '')?.[1];
    const confirmed = await request<{ user: { emailVerified: boolean } }>(service.api, 'POST /api/email-verification/confirm', { json: { token: link }, cookie: owner });
    expect(confirmed.status).toBe(200);
    expect(confirmed.json.user.emailVerified).toBe(true);
    await service.close();
  });

  it('an account made through a provider has no password: no password logs in to it', async () => {
    const service = await serviceWith();
    await signIn(service, 'erin');
    for (const password of ['', '$none$', '!', 'correct horse battery']) {
      const login = await request(service.api, 'POST /api/login', { json: { email: 'erin@example.com', password } });
      expect([400, 401]).toContain(login.status);
    }
    await service.close();
  });

  it('without a password, no session proves the owner, however fresh: the password is set through the reset mail first', async () => {
    const { service, mails } = await serviceWithMails();
    // A sign-in a moment ago: a thief holding this cookie has the same fresh session.
    const cookie = (await signIn(service, 'erin')).answer.cookies;
    const refusals = [
      ['DELETE /api/me', { password: 'made up' }],
      ['POST /api/password', { currentPassword: 'made up', newPassword: 'the thief password' }],
      ['POST /api/email', { newEmail: 'thief@example.com', password: 'made up' }],
      ['POST /api/two-factor/totp', { password: 'made up' }],
      ['POST /api/me/identities/test', { password: 'made up' }],
      ['DELETE /api/me/identities/test', { password: 'made up' }],
    ] as const;
    for (const [operation, json] of refusals) {
      const answer = await request<{ code: string; error: string }>(service.api, operation, { json, cookie });
      expect([operation, answer.status, answer.json.code], answer.text).toEqual([operation, 403, 'wrong_password']);
      expect(answer.json.error).toContain('reset');
    }
    // Nothing changed: the identity still signs in, and the account has no factor.
    expect((await request<{ identities: unknown[] }>(service.api, 'GET /api/me/identities', { cookie })).json.identities).toHaveLength(1);
    expect((await signIn(service, 'erin')).answer.cookies.sl_session).toBeTruthy();
    // The inbox is the proof: the owner sets a password through the mailed link, then uses it.
    expect((await request(service.api, 'POST /api/password-reset', { json: { email: 'erin@example.com' } })).status).toBe(202);
    const token = /token=([A-Za-z0-9_-]+)/.exec(mails.filter((m) => m.to === 'erin@example.com').at(-1)?.text ?? '')?.[1];
    expect((await request(service.api, 'POST /api/password-reset/confirm', { json: { token, newPassword: 'erin sets one now' } })).status).toBe(200);
    const login = await request(service.api, 'POST /api/login', { json: { email: 'erin@example.com', password: 'erin sets one now' } });
    expect(login.status).toBe(200);
    expect((await request(service.api, 'DELETE /api/me', { json: { password: 'erin sets one now' }, cookie: login.cookies })).status).toBe(200);
    await service.close();
  });

  it('an account whose one way in is its identity cannot unlink it: without a password there is no proof (403), and the identity stays', async () => {
    const service = await serviceWith();
    const { answer } = await signIn(service, 'carol');
    const unlink = await request<{ code: string }>(service.api, 'DELETE /api/me/identities/test', { json: { password: '' }, cookie: answer.cookies, headers: { origin: 'http://localhost' } });
    expect(unlink.status).toBe(403);
    expect(unlink.json.code).toBe('wrong_password');
    expect((await request<{ identities: unknown[] }>(service.api, 'GET /api/me/identities', { cookie: answer.cookies })).json.identities).toHaveLength(1);
    await service.close();
  });

  it('linking asks for proof in the request: without the password it is refused, with it the identity links and a notice is mailed', async () => {
    const service = await serviceWith();
    const signup = await request(service.api, 'POST /api/signup', { json: { name: 'Owner', email: 'owner@example.com', password: 'correct horse battery' } });
    const cookie = signup.cookies;
    const refused = await request<{ code: string }>(service.api, 'POST /api/me/identities/test', { json: {}, cookie });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('wrong_password');
    const wrong = await request(service.api, 'POST /api/me/identities/test', { json: { password: 'wrong password!' }, cookie });
    expect(wrong.status).toBe(403);
    const started = await request<{ url: string }>(service.api, 'POST /api/me/identities/test', { json: { password: 'correct horse battery', returnTo: '/settings' }, cookie });
    expect(started.status).toBe(200);
    // The provider's address is someone else's: a link needs none to match.
    const back = await browse(started.json.url, 'linker');
    const answer = await callback(service, back, started.cookies.sl_oauth ?? '');
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/settings?linked=test');
    const identities = await request<{ identities: { subject: string }[] }>(service.api, 'GET /api/me/identities', { cookie });
    expect(identities.json.identities.map((i) => i.subject)).toEqual(['linker']);
    // The identity now signs in to the owner's account.
    const { answer: signedIn } = await signIn(service, 'linker');
    const me = await request<{ user: { email: string } }>(service.api, 'GET /api/me', { cookie: signedIn.cookies });
    expect(me.json.user.email).toBe('owner@example.com');
    // Unlinking is removing a way in: a session alone does not do it, the password in the request does.
    expect((await request(service.api, 'DELETE /api/me/identities/test', { cookie })).status).toBe(400);
    const unproved = await request<{ code: string }>(service.api, 'DELETE /api/me/identities/test', { json: { password: 'wrong password!' }, cookie });
    expect([unproved.status, unproved.json.code]).toEqual([403, 'wrong_password']);
    expect((await request<{ identities: unknown[] }>(service.api, 'GET /api/me/identities', { cookie })).json.identities).toHaveLength(1);
    const unlink = await request(service.api, 'DELETE /api/me/identities/test', { json: { password: 'correct horse battery' }, cookie });
    expect(unlink.status).toBe(200);
    await service.close();
  });

  it('an account with a second factor still needs it: the callback sets the sl_login challenge and second_factor, and a code finishes', async () => {
    const service = await serviceWith();
    const password = 'correct horse battery';
    const signup = await request(service.api, 'POST /api/signup', { json: { name: 'Guarded', email: 'guarded@example.com', password } });
    const cookie = signup.cookies;
    const enrol = await request<{ otpauthUri: string }>(service.api, 'POST /api/two-factor/totp', { json: { password }, cookie });
    const app = URI.parse(enrol.json.otpauthUri) as TOTP;
    const confirmed = await request<{ recoveryCodes: string[] }>(service.api, 'POST /api/two-factor/totp/confirm', { json: { code: app.generate() }, cookie });
    expect(confirmed.status).toBe(200);
    // A way in added: the factor is in the request too, the session's fresh step-up is not enough.
    const unproved = await request<{ code: string }>(service.api, 'POST /api/me/identities/test', { json: { password }, cookie });
    expect([unproved.status, unproved.json.code]).toEqual([403, 'second_factor_required']);
    const started = await request<{ url: string }>(service.api, 'POST /api/me/identities/test', { json: { password, recoveryCode: confirmed.json.recoveryCodes[0] }, cookie });
    expect(started.status).toBe(200);
    const linked = await callback(service, await browse(started.json.url, 'erin'), started.cookies.sl_oauth ?? '');
    expect(linked.headers.get('location')).toBe('/?linked=test');
    const { answer } = await signIn(service, 'erin');
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/?second_factor=totp%2Crecovery');
    expect(answer.cookies.sl_session).toBeFalsy();
    expect(answer.cookies.sl_login).toBeTruthy();
    const finished = await request<{ user: { email: string } }>(service.api, 'POST /api/login/second-factor', { json: { recoveryCode: 'not-a-code' }, cookie: { sl_login: answer.cookies.sl_login! } });
    expect(finished.status).toBe(401);
    await service.close();
  });

  it('an identity another account holds is not linked (identity_taken)', async () => {
    const service = await serviceWith();
    await signIn(service, 'alice');
    const signup = await request(service.api, 'POST /api/signup', { json: { name: 'Other', email: 'other@example.com', password: 'correct horse battery' } });
    const started = await request<{ url: string }>(service.api, 'POST /api/me/identities/test', { json: { password: 'correct horse battery' }, cookie: signup.cookies });
    const back = await browse(started.json.url, 'alice');
    const answer = await callback(service, back, started.cookies.sl_oauth ?? '');
    expect(errorOf(answer)).toBe('identity_taken');
    await service.close();
  });
});

describe('abuse (issue 42)', () => {
  it('a callback without the sl_oauth cookie fails with sign_in_state_invalid, and no session', async () => {
    const service = await serviceWith();
    const { started } = await start(service);
    const back = await browse(started.json.url, 'alice');
    const answer = await callback(service, back, null);
    expect(answer.status).toBe(303);
    expect(errorOf(answer)).toBe('sign_in_state_invalid');
    expect(answer.cookies.sl_session).toBeFalsy();
    await service.close();
  });

  it('a callback with another browser’s cookie fails', async () => {
    const service = await serviceWith();
    const mine = await start(service);
    const theirs = await start(service);
    const back = await browse(mine.started.json.url, 'alice');
    const answer = await callback(service, back, theirs.state);
    expect(errorOf(answer)).toBe('sign_in_state_invalid');
    expect(answer.cookies.sl_session).toBeFalsy();
    await service.close();
  });

  it('a missing or wrong state fails', async () => {
    const service = await serviceWith();
    for (const change of [(u: URL) => u.searchParams.delete('state'), (u: URL) => u.searchParams.set('state', 'not-the-state')]) {
      const { started, state } = await start(service);
      const back = await browse(started.json.url, 'alice');
      change(back);
      const answer = await callback(service, back, state);
      expect(errorOf(answer)).toBe('sign_in_state_invalid');
      expect(answer.cookies.sl_session).toBeFalsy();
    }
    await service.close();
  });

  it('a callback with a made-up state (a page sending the browser there) takes nothing: the real one still signs in', async () => {
    const service = await serviceWith();
    const { started, state } = await start(service);
    const back = await browse(started.json.url, 'alice');
    for (const [name, value] of [['state', 'not-the-state'], ['state', '']] as const) {
      const forged = new URL(back);
      forged.searchParams.set(name, value);
      expect(errorOf(await callback(service, forged, state))).toBe('sign_in_state_invalid');
    }
    const answer = await callback(service, back, state);
    expect(answer.cookies.sl_session).toBeTruthy();
    await service.close();
  });

  it('a reused state (the same callback twice) fails the second time', async () => {
    const service = await serviceWith();
    const { back, state, answer } = await signIn(service, 'alice');
    expect(answer.cookies.sl_session).toBeTruthy();
    const replay = await callback(service, back, state);
    expect(errorOf(replay)).toBe('sign_in_state_invalid');
    expect(replay.cookies.sl_session).toBeFalsy();
    await service.close();
  });

  it('a code replayed under a fresh state is refused by the provider (identity_invalid)', async () => {
    const service = await serviceWith();
    const first = await signIn(service, 'alice');
    expect(first.answer.cookies.sl_session).toBeTruthy();
    const { started, state } = await start(service);
    const fresh = new URL(started.json.url).searchParams.get('state')!;
    const replayed = new URL(first.back);
    replayed.searchParams.set('state', fresh);
    const answer = await callback(service, replayed, state);
    expect(errorOf(answer)).toBe('identity_invalid');
    expect(answer.cookies.sl_session).toBeFalsy();
    await service.close();
  });

  it('a returnTo that leaves the origin is refused at the start (400)', async () => {
    const service = await serviceWith();
    for (const returnTo of ['//evil.example', '/\\evil.example', 'https://evil.example', '/%2F%2Fevil.example', '%2F%2Fevil.example', '/%5Cevil.example', '/%252F%252Fevil.example', 'javascript:alert(1)', '/\tevil', ' /x']) {
      const { started } = await start(service, { returnTo });
      expect(started.status, returnTo).toBe(400);
      expect(started.cookies.sl_oauth).toBeUndefined();
    }
    await service.close();
  });

  it('a returnTo whose dot segments resolve to //host is refused at the start (400), not sent on as //host', async () => {
    const service = await serviceWith();
    // new URL('/.//evil.example', origin).pathname is '//evil.example': the callback's Location would leave the origin.
    for (const returnTo of ['/.//evil.example', '/..//evil.example', '/a/..//evil.example', '/%2e//evil.example', '/%2E%2E//evil.example/x', '/.%2F/evil.example']) {
      const { started } = await start(service, { returnTo });
      expect(started.status, returnTo).toBe(400);
      expect(started.cookies.sl_oauth).toBeUndefined();
    }
    await service.close();
  });

  it('a returnTo beyond ASCII, or with what a URL does not hold, lands signed in at it percent-encoded (no 500 after the sign-in)', async () => {
    const service = await serviceWith();
    // Each accepted at the start; the Location of the signed-in ending was the raw value: a 500
    // (ERR_INVALID_CHAR) after the state was taken and the session stored, or `/é` read as `/Ã©`.
    const cases: [string, string][] = [
      ['/\u2028x', '/%E2%80%A8x'],
      ['/\u{1F600}', '/%F0%9F%98%80'],
      ['/é', '/%C3%A9'],
      ['/%C3%A9/caf\u00e9', '/%C3%A9/caf%C3%A9'],
      ['/a b"<>|^`{}', '/a%20b%22%3C%3E%7C%5E%60%7B%7D'],
      ['/x?q=\u00e9 t&r=%20#f\u00e9 g', '/x?q=%C3%A9%20t&r=%20#f%C3%A9%20g'],
    ];
    for (const [returnTo, location] of cases) {
      const { answer } = await signIn(service, 'alice', { returnTo });
      expect(answer.status, returnTo).toBe(303);
      expect(answer.headers.get('location'), returnTo).toBe(location);
      expect(answer.cookies.sl_session, returnTo).toBeTruthy();
      // The browser reads it back as the same path on this origin.
      const back = new URL(location, 'http://localhost');
      expect(back.origin).toBe('http://localhost');
      expect(decodeURIComponent(back.pathname), returnTo).toBe(decodeURIComponent(new URL(returnTo, 'http://localhost').pathname));
      expect((await request(service.api, 'GET /api/me', { cookie: answer.cookies })).status).toBe(200);
    }
    await service.close();
  });

  it('a locked account signs in through its provider by no means: 303 with error=account_locked, no session', async () => {
    const service = await serviceWith();
    const first = await signIn(service, 'erin');
    expect(first.answer.cookies.sl_session).toBeTruthy();
    const me = await request<{ user: { id: number } }>(service.api, 'GET /api/me', { cookie: first.answer.cookies });
    await service.admin.lockAccount(me.json.user.id, { reason: 'reported stolen' }, { operator: 'alice' });
    expect((await request(service.api, 'GET /api/me', { cookie: first.answer.cookies })).status).toBe(401);
    const again = await signIn(service, 'erin', { returnTo: '/account' });
    expect(again.answer.status).toBe(303);
    expect(again.answer.headers.get('location')).toBe('/account?error=account_locked');
    expect(again.answer.cookies.sl_session).toBeFalsy();
    await service.close();
  });

  it('a provider that is down answers 503 provider_unavailable at once', async () => {
    const service = await serviceWith({ issuer: 'http://127.0.0.1:1' });
    const { started } = await start(service);
    expect(started.status).toBe(503);
    expect((started.json as unknown as { code: string }).code).toBe('provider_unavailable');
    await service.close();
  });

  it('a provider that never answers is given up on after the bounded wait', async () => {
    // Accepts connections and never answers; its sockets are destroyed at the end (close waits for them).
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const service = await serviceWith({ issuer: `http://127.0.0.1:${port}`, providerTimeoutMs: 300 });
    const { started } = await start(service);
    expect(started.status).toBe(503);
    expect((started.json as unknown as { code: string }).code).toBe('provider_unavailable');
    await service.close();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('a flood of starts from many addresses is bounded in all (the states kept): past the total, 429', async () => {
    const service = await serviceWith();
    let refused: TestAnswer | undefined;
    for (let i = 0; i < 3_001 && !refused; i++) {
      const started = await request(service.api, 'POST /api/sign-in/test', { json: {}, ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` });
      if (started.status !== 200) refused = started;
      else expect(i).toBeLessThan(3_000);
    }
    expect(refused?.status).toBe(429);
    expect(refused?.headers.get('ratelimit-policy')).toContain('"provider-sign-in-total";q=3000');
    await service.close();
  }, 120_000);

  it('a flood of starts from one address is limited (429)', async () => {
    const service = await serviceWith();
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await start(service)).started.status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
    await service.close();
  });
});

/**
 * GitHub's OAuth 2.0 endpoints cannot be reached from here: a small local server stands in for them,
 * answering as GitHub's documentation says (the authorize redirect with `code` and `state`; the token
 * endpoint's JSON for `Accept: application/json`, checking the client, the code and the PKCE verifier;
 * `GET /user` and `GET /user/emails` with the bearer token). It is a stand-in, not GitHub.
 */
describe('sign-in through GitHub (OAuth 2.0), against a local stand-in for its endpoints', () => {
  let standIn: Server;
  let base = '';
  const emails = { current: [{ email: 'octo@example.com', primary: true, verified: true, visibility: 'public' }, { email: 'other@example.com', primary: false, verified: true, visibility: null }] };
  const issued = new Map<string, { challenge: string; redirectUri: string }>();

  beforeAll(async () => {
    standIn = createHttpServer(async (req, res) => {
      const url = new URL(req.url ?? '/', base);
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/login/oauth/authorize') {
        const code = `code-${issued.size + 1}`;
        issued.set(code, { challenge: url.searchParams.get('code_challenge') ?? '', redirectUri: url.searchParams.get('redirect_uri') ?? '' });
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state')!);
        res.writeHead(302, { location: back.href });
        return void res.end();
      }
      if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
        let text = '';
        for await (const chunk of req) text += String(chunk);
        const form = new URLSearchParams(text);
        const grant = issued.get(form.get('code') ?? '');
        issued.delete(form.get('code') ?? '');
        const verifier = createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url');
        if (!grant || grant.challenge !== verifier || form.get('client_id') !== 'gh-client' || form.get('client_secret') !== 'gh-secret') return json(400, { error: 'bad_verification_code' });
        return json(200, { access_token: 'gho_standin', token_type: 'bearer', scope: 'read:user,user:email' });
      }
      if (req.headers.authorization !== 'Bearer gho_standin') return json(401, { message: 'Requires authentication' });
      if (url.pathname === '/user') return json(200, { id: 4242, login: 'octocat', name: 'The Octocat' });
      if (url.pathname === '/user/emails') return json(200, emails.current);
      json(404, { message: 'Not Found' });
    });
    await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => standIn.close(() => resolve())));

  const github = () =>
    createService({
      store: createMemoryStore(),
      hasher: testHasher,
      mcp: false,
      identityProviders: [{ id: 'github', kind: 'github', clientId: 'gh-client', clientSecret: 'gh-secret', allowHttp: true, github: { authorizationEndpoint: `${base}/login/oauth/authorize`, tokenEndpoint: `${base}/login/oauth/access_token`, apiUrl: base } }],
    });

  async function viaGitHub(service: Service) {
    const started = await request<{ url: string }>(service.api, 'POST /api/sign-in/github', { json: {} });
    expect(started.status).toBe(200);
    const url = new URL(started.json.url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('nonce')).toBeNull();
    const authorize = await fetch(url, { redirect: 'manual' });
    const back = new URL(authorize.headers.get('location')!);
    return request(service.api, `GET ${back.pathname}${back.search}`, { cookie: { sl_oauth: started.cookies.sl_oauth ?? '' } });
  }

  it('makes the account from the user and its verified primary address, and signs in', async () => {
    const service = await github();
    const answer = await viaGitHub(service);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/');
    const me = await request<{ user: { email: string; name: string; emailVerified: boolean } }>(service.api, 'GET /api/me', { cookie: answer.cookies });
    expect(me.json.user).toMatchObject({ email: 'octo@example.com', name: 'The Octocat', emailVerified: true });
    const identities = await request<{ identities: { provider: string; subject: string }[] }>(service.api, 'GET /api/me/identities', { cookie: answer.cookies });
    expect(identities.json.identities).toEqual([expect.objectContaining({ provider: 'github', subject: '4242' })]);
    await service.close();
  });

  it('a primary address GitHub has not verified stays unverified', async () => {
    emails.current = [{ email: 'octo@example.com', primary: true, verified: false, visibility: 'public' }];
    const service = await github();
    const answer = await viaGitHub(service);
    const me = await request<{ user: { emailVerified: boolean } }>(service.api, 'GET /api/me', { cookie: answer.cookies });
    expect(me.json.user.emailVerified).toBe(false);
    await service.close();
  });
});
