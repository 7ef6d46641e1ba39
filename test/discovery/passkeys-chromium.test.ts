/**
 * Passkeys as people use them (issue 34): headless Chromium with a virtual authenticator (the DevTools
 * protocol's `WebAuthn` domain: CTAP2, internal, resident keys, user verification), on the service's
 * own passkeys page at `http://localhost:<port>` (WebAuthn refuses IP addresses as relying party IDs;
 * with HOST=localhost and no PUBLIC_URL the relying party is the server's own address). The page
 * adds a passkey and signs in with it, no address typed; then an attacker's pass, each answer
 * produced by the same browser and authenticator and sent as an attacker would: a challenge used
 * twice, another account's challenge, a registration's challenge at a sign-in, a removed passkey, a
 * counter that went backwards, no user verification.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import type { RunningServer } from '@sl-accounts/server';
import { browserNote, useChromium } from '../support/browser.ts';
import { request, sessionFrom } from '../support/client.ts';
import { capturingLogger } from '../support/logger.ts';
import { poll } from '../support/poll.ts';
import { confirmTokens } from '../support/reset-mail.ts';
import { HOST_KINDS, STORES, startTestServer } from '../support/server.ts';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };
const BOB = { name: 'Bob', email: 'bob@example.com', password: 'another fine password' };

/** A browser context with a virtual authenticator, on the passkeys page. */
interface Browsing {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly cdp: CDPSession;
  readonly authenticatorId: string;
}

type Json = Record<string, unknown>;

/** The page's WebAuthn, as the functions evaluated in it use it (this suite's types have no DOM). */
interface PageWebAuthn {
  readonly PublicKeyCredential: { parseCreationOptionsFromJSON(options: Json): unknown; parseRequestOptionsFromJSON(options: Json): unknown };
  readonly navigator: { readonly credentials: { create(options: Json): Promise<{ toJSON(): Json }>; get(options: Json): Promise<{ toJSON(): Json }> } };
}

// The user's paths on every store (the passkeys' rows, their counter and challenges are the store's);
// the attacker's pass on the memory store only: the store contract runs each race on every store.
for (const store of STORES) {
describe.skipIf(store.skip !== undefined)(`passkeys in headless Chromium with a virtual authenticator, on the ${HOST_KINDS[0]} host, ${store.title}${browserNote}`, () => {
  const { launched } = useChromium();
  let server: RunningServer;
  let lines: string[];
  let origin: string;
  beforeAll(async () => {
    const captured = capturingLogger('info');
    lines = captured.lines;
    server = await startTestServer({ host: HOST_KINDS[0], store: store.kind, env: { HOST: 'localhost', MAIL_POLL_MS: '20' }, logger: captured.logger });
    origin = `http://localhost:${new URL(server.url).port}`;
  });
  afterAll(() => server?.close());

  /** Subjects of the mails the log mailer wrote to `email`. */
  const mailsTo = (email: string) =>
    lines
      .filter((line) => line.includes('"mail"'))
      .map((line) => (JSON.parse(line) as { mail?: { to: string; subject: string } }).mail)
      .filter((mail) => mail?.to === email)
      .map((mail) => mail!.subject);
  const mailed = async (email: string, subject: string) => (await poll(async () => mailsTo(email), (subjects) => subjects.some((s) => s.includes(subject)), 10_000)).filter((s) => s.includes(subject)).length;

  async function browse(ctx: Parameters<typeof launched>[0]): Promise<Browsing> {
    const context = await launched(ctx).newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await page.goto(`${origin}/passkeys`, { waitUntil: 'networkidle' });
    return { context, page, cdp, authenticatorId };
  }

  /** A request from the page itself (same origin, its cookies): the answer's status and body. */
  const fromPage = (page: Page, method: string, path: string, body?: unknown) =>
    page.evaluate(
      async ([method, path, body]) => {
        const res = await fetch(path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      },
      [method, path, body] as const,
    );

  /**
   * Signs up in the page, so the browser holds the account's session cookie, and confirms the address
   * (an unverified address gets only a few mails an hour that anyone can cause: the notices would stop).
   */
  async function signUp(page: Page, who: typeof ADA): Promise<void> {
    expect((await fromPage(page, 'POST', '/api/signup', who)).status).toBe(201);
    const tokens = await poll(async () => confirmTokens(lines, who.email), (found) => found.length > 0, 10_000);
    expect((await fromPage(page, 'POST', '/api/email-verification/confirm', { token: tokens[0] })).status).toBe(200);
  }

  /** `navigator.credentials.create()` on the given registration options (overridden by `changes`): its `toJSON()`. */
  const create = (page: Page, options: Json, changes: Json = {}) =>
    page.evaluate(
      async ([options, changes]) => {
        const page = globalThis as unknown as PageWebAuthn;
        const parsed = page.PublicKeyCredential.parseCreationOptionsFromJSON({ ...options, ...changes });
        return (await page.navigator.credentials.create({ publicKey: parsed })).toJSON();
      },
      [options, changes] as const,
    );

  /** `navigator.credentials.get()` on the given request options (overridden by `changes`): its `toJSON()`. */
  const get = (page: Page, options: Json, changes: Json = {}) =>
    page.evaluate(
      async ([options, changes]) => {
        const page = globalThis as unknown as PageWebAuthn;
        const parsed = page.PublicKeyCredential.parseRequestOptionsFromJSON({ ...options, ...changes });
        return (await page.navigator.credentials.get({ publicKey: parsed })).toJSON();
      },
      [options, changes] as const,
    );

  const signInOptions = async (page: Page) => ((await fromPage(page, 'POST', '/api/passkeys/sign-in-options')).body as { options: Json }).options;
  const registrationOptions = async (page: Page) => {
    const answer = await fromPage(page, 'POST', '/api/passkeys/registration-options');
    expect(answer.status).toBe(200);
    return (answer.body as { options: Json }).options;
  };
  /** Registers a passkey through the API from the page (the authenticator makes it). */
  async function register(page: Page, name: string, changes: Json = {}): Promise<string> {
    const response = await create(page, await registrationOptions(page), changes);
    const answer = await fromPage(page, 'POST', '/api/passkeys', { name, response });
    expect(answer.status).toBe(201);
    return (answer.body as { passkey: { id: string } }).passkey.id;
  }
  const status = (page: Page) => page.locator('#status').innerText();
  /** A step-up of the page's session with its passkey (the owner's changes need one once a factor is on). */
  async function stepUp(page: Page): Promise<void> {
    const options = await fromPage(page, 'POST', '/api/passkeys/step-up-options');
    expect(options.status).toBe(200);
    expect(await fromPage(page, 'POST', '/api/passkeys/step-up', { response: await get(page, (options.body as { options: Json }).options) })).toEqual({ status: 200, body: { ok: true } });
  }

  it('the page adds a passkey (other sessions end, a notice is mailed); after a logout and with no cookie at all, it signs in with the passkey alone', { timeout: 90_000 }, async (ctx) => {
    const { context, page } = await browse(ctx);
    await signUp(page, ADA);
    // Another session of Ada's, elsewhere: adding a passkey ends it.
    const elsewhere = sessionFrom(await request(origin, '/api/login', { json: { email: ADA.email, password: ADA.password } }))!;
    await page.reload({ waitUntil: 'networkidle' });
    await page.getByLabel('Name of the new passkey').fill('Laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('status').filter({ hasText: 'Passkey added' }).waitFor({ timeout: 15_000 });
    expect(await status(page)).toBe('Passkey added: Laptop. Every other session of the account was signed out.');
    expect(await page.locator('#passkeys li').allInnerTexts()).toEqual([expect.stringMatching(/^Laptop \(added \d{4}-\d\d-\d\d, never used\)$/)]);
    expect((await request(origin, '/api/me', { session: elsewhere })).status).toBe(401);
    expect(await mailed(ADA.email, 'A passkey was added to your account')).toBe(1);
    // The page's own session stayed.
    expect((await fromPage(page, 'GET', '/api/me')).status).toBe(200);

    expect((await fromPage(page, 'POST', '/api/logout')).status).toBe(200);
    await context.clearCookies();
    const newDevice = mailsTo(ADA.email).filter((s) => s.includes('New sign-in')).length;
    await page.reload({ waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('status').filter({ hasText: 'Signed in' }).waitFor({ timeout: 15_000 });
    expect(await status(page)).toBe(`Signed in as ${ADA.email}.`);
    const me = await fromPage(page, 'GET', '/api/me');
    expect(me).toEqual({ status: 200, body: { ok: true, user: expect.objectContaining({ email: ADA.email }) } });
    // No device cookie was left: a new device, told as a login would tell it; the answer set one for next time.
    expect(await mailed(ADA.email, 'New sign-in')).toBe(newDevice + 1);
    expect((await context.cookies()).filter((c) => c.name === 'sl_device').map((c) => c.path).sort()).toEqual(['/api/login', '/api/passkeys/sign-in']);
    expect(await page.locator('#passkeys li').allInnerTexts()).toEqual([expect.stringMatching(/^Laptop \(added .*, last used \d{4}-\d\d-\d\d\)$/)]);

    // Renamed, then removed: a notice, and the passkey signs in no more.
    const [listed] = ((await fromPage(page, 'GET', '/api/passkeys')).body as { passkeys: { id: string }[] }).passkeys;
    expect(await fromPage(page, 'PATCH', `/api/passkeys/${listed!.id}`, { name: '  Work laptop ' })).toEqual({ status: 200, body: { ok: true, passkey: expect.objectContaining({ id: listed!.id, name: 'Work laptop' }) } });
    expect((await fromPage(page, 'DELETE', `/api/passkeys/${listed!.id}`)).status).toBe(200);
    expect((await fromPage(page, 'DELETE', `/api/passkeys/${listed!.id}`)).status).toBe(404);
    expect(await mailed(ADA.email, 'A passkey was removed from your account')).toBe(1);
    expect(((await fromPage(page, 'GET', '/api/passkeys')).body as { passkeys: unknown[] }).passkeys).toEqual([]);
    await context.close();
  });

  it('with a passkey on, the password alone opens nothing: the login answers 202 and the passkey finishes it; adding another needs a step-up, which a passkey gives', { timeout: 90_000 }, async (ctx) => {
    const { context, page } = await browse(ctx);
    const who = { ...ADA, email: 'factor@example.com' };
    await signUp(page, who);
    await register(page, 'First');
    // The signup's session verified no factor: a second passkey needs a step-up first.
    const refused = await fromPage(page, 'POST', '/api/passkeys', { response: { id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: 'x' } } });
    expect(refused).toEqual({ status: 403, body: expect.objectContaining({ ok: false, code: 'second_factor_required' }) });
    await stepUp(page);
    // (One virtual authenticator holds one passkey per account: the second replaces the first there.)
    await register(page, 'Second', { excludeCredentials: [] });

    expect((await fromPage(page, 'POST', '/api/logout')).status).toBe(200);
    await context.clearCookies();
    const first = await fromPage(page, 'POST', '/api/login', { email: who.email, password: who.password });
    expect(first).toEqual({ status: 202, body: { ok: true, secondFactor: { methods: ['passkey'], expiresAt: expect.any(String) } } });
    expect((await fromPage(page, 'GET', '/api/me')).status).toBe(401);
    expect((await context.cookies()).map((c) => c.name)).toContain('sl_login');
    const options = await fromPage(page, 'POST', '/api/login/passkey-options');
    expect(options.status).toBe(200);
    expect(((options.body as { options: { allowCredentials: unknown[] } }).options.allowCredentials)).toHaveLength(2);
    const answer = await get(page, (options.body as { options: Json }).options);
    const second = await fromPage(page, 'POST', '/api/login/passkey', { response: answer });
    expect(second).toEqual({ status: 200, body: { ok: true, user: expect.objectContaining({ email: who.email }) } });
    expect((await fromPage(page, 'GET', '/api/me')).status).toBe(200);
    expect((await context.cookies()).map((c) => c.name)).not.toContain('sl_login');
    // The same answer again: the login challenge is gone.
    expect((await fromPage(page, 'POST', '/api/login/passkey', { response: answer })).status).toBe(401);
    // The login's second step was a step-up: removing a passkey goes through.
    const [oldest] = ((await fromPage(page, 'GET', '/api/passkeys')).body as { passkeys: { id: string }[] }).passkeys;
    expect((await fromPage(page, 'DELETE', `/api/passkeys/${oldest!.id}`)).status).toBe(200);
    await context.close();
  });

  if (store.kind === 'memory') describe('an attacker’s pass', () => {
    it('a sign-in answer sent twice: the first signs in, the second is refused (the challenge works once)', { timeout: 60_000 }, async (ctx) => {
      const { context, page } = await browse(ctx);
      await signUp(page, { ...ADA, email: 'replay@example.com' });
      await register(page, 'Replayed');
      const answer = await get(page, await signInOptions(page));
      const first = await request(origin, '/api/passkeys/sign-in', { json: { response: answer } });
      expect(first.status).toBe(200);
      expect(sessionFrom(first)).toBeDefined();
      const second = await request(origin, '/api/passkeys/sign-in', { json: { response: answer } });
      expect(second.status).toBe(401);
      expect(second.body).toEqual({ ok: false, error: 'The passkey was not accepted', code: 'invalid_credentials' });
      expect(sessionFrom(second)).toBeUndefined();
      // Twice at once, with a fresh challenge: one sign-in, one refusal.
      const raced = await get(page, await signInOptions(page));
      const both = await Promise.all([0, 1].map(() => request(origin, '/api/passkeys/sign-in', { json: { response: raced } })));
      expect(both.map((r) => r.status).sort()).toEqual([200, 401]);
      await context.close();
    });

    it('another account’s registration challenge, or a registration challenge at a sign-in, is refused', { timeout: 60_000 }, async (ctx) => {
      const { context, page } = await browse(ctx);
      await signUp(page, { ...ADA, email: 'victim@example.com' });
      const bob = sessionFrom(await request(origin, '/api/signup', { json: BOB }))!;
      // Ada's browser made the passkey for Ada's challenge; Bob sends it as his own.
      const adas = await create(page, await registrationOptions(page));
      const asBob = await request(origin, '/api/passkeys', { json: { response: adas }, session: bob });
      expect(asBob.status).toBe(400);
      expect((asBob.body as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['response']);
      expect((await request(origin, '/api/passkeys', { session: bob })).body).toEqual({ ok: true, passkeys: [] });
      // Bob's attempt used the challenge up: Ada cannot finish with it either.
      expect((await fromPage(page, 'POST', '/api/passkeys', { response: adas })).status).toBe(400);
      // A registration's challenge answered as a sign-in's (the client chose the challenge it signs).
      const id = await register(page, 'Mine');
      const registering = await registrationOptions(page);
      const signed = await get(page, { rpId: new URL(origin).hostname, challenge: registering.challenge, userVerification: 'required', timeout: 60_000 }, { allowCredentials: [{ id, type: 'public-key' }] });
      expect((await request(origin, '/api/passkeys/sign-in', { json: { response: signed } })).status).toBe(401);
      // A challenge the service never issued.
      const made = await get(page, { rpId: new URL(origin).hostname, challenge: 'bm90LWlzc3VlZC1ieS10aGUtc2VydmljZS1hdC1hbGw', userVerification: 'required', timeout: 60_000 });
      expect((await request(origin, '/api/passkeys/sign-in', { json: { response: made } })).status).toBe(401);
      await context.close();
    });

    it('an answer of a removed passkey is refused, though the authenticator still holds it', { timeout: 60_000 }, async (ctx) => {
      const { context, page } = await browse(ctx);
      await signUp(page, { ...ADA, email: 'removed@example.com' });
      const id = await register(page, 'Lost phone');
      // Removing a factor needs a step-up: without one, refused.
      expect((await fromPage(page, 'DELETE', `/api/passkeys/${id}`)).status).toBe(403);
      await stepUp(page);
      expect((await fromPage(page, 'DELETE', `/api/passkeys/${id}`)).status).toBe(200);
      const answer = await get(page, await signInOptions(page), { allowCredentials: [{ id, type: 'public-key' }] });
      expect(answer.id).toBe(id);
      const refused = await request(origin, '/api/passkeys/sign-in', { json: { response: answer } });
      expect(refused.status).toBe(401);
      expect(sessionFrom(refused)).toBeUndefined();
      await context.close();
    });

    it('a counter that went backwards (a cloned authenticator) is refused; the genuine one goes on', { timeout: 60_000 }, async (ctx) => {
      const { context, page, cdp, authenticatorId } = await browse(ctx);
      await signUp(page, { ...ADA, email: 'cloned@example.com' });
      const id = await register(page, 'Cloned');
      for (let i = 0; i < 3; i++) expect((await request(origin, '/api/passkeys/sign-in', { json: { response: await get(page, await signInOptions(page)) } })).status).toBe(200);
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      const held = credentials.find((c) => Buffer.from(c.credentialId, 'base64').toString('base64url') === id)!;
      expect(held.signCount).toBeGreaterThanOrEqual(3);
      // The clone: the same key, an older counter.
      await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: held.credentialId });
      await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...held, signCount: 1 } });
      const cloned = await get(page, await signInOptions(page));
      expect(cloned.id).toBe(id);
      expect((await request(origin, '/api/passkeys/sign-in', { json: { response: cloned } })).status).toBe(401);
      // The counter moved on past the stored one: accepted again.
      await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: held.credentialId });
      await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...held, signCount: held.signCount + 10 } });
      expect((await request(origin, '/api/passkeys/sign-in', { json: { response: await get(page, await signInOptions(page)) } })).status).toBe(200);
      await context.close();
    });

    it('an answer without user verification is refused, at a sign-in and at a registration', { timeout: 60_000 }, async (ctx) => {
      const { context, page, cdp, authenticatorId } = await browse(ctx);
      await signUp(page, { ...ADA, email: 'unverified@example.com' });
      const id = await register(page, 'Verified once');
      // A step-up while the user is still verified: the registration below fails for want of verification only.
      await stepUp(page);
      // The key moves to an authenticator that cannot verify its user (a stolen key without its PIN);
      // the client asks for no verification (its choice, not the service's).
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
      const bare = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: false, automaticPresenceSimulation: true },
      });
      for (const credential of credentials) await cdp.send('WebAuthn.addCredential', { authenticatorId: bare.authenticatorId, credential });
      const answer = await get(page, await signInOptions(page), { userVerification: 'discouraged', allowCredentials: [{ id, type: 'public-key' }] });
      const flags = Buffer.from(String((answer.response as Json).authenticatorData), 'base64url')[32]!;
      expect(flags & 0x04).toBe(0);
      expect((await request(origin, '/api/passkeys/sign-in', { json: { response: answer } })).status).toBe(401);
      const made = await create(page, await registrationOptions(page), { authenticatorSelection: { residentKey: 'required', userVerification: 'discouraged' }, excludeCredentials: [] });
      // The authenticator data of a registration: the UV flag (bit 2 of byte 32) is off here too.
      expect(Buffer.from(String((made.response as Json).authenticatorData), 'base64url')[32]! & 0x04).toBe(0);
      expect((await fromPage(page, 'POST', '/api/passkeys', { response: made })).status).toBe(400);
      expect(((await fromPage(page, 'GET', '/api/passkeys')).body as { passkeys: unknown[] }).passkeys).toHaveLength(1);
      await context.close();
    });
  });
});
}
