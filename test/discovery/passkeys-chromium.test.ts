/**
 * Passkeys as people use them (issue 34): headless Chromium with a virtual authenticator (the DevTools
 * protocol's `WebAuthn` domain: CTAP2, internal, resident keys, user verification), on the service's
 * own passkeys page at `http://localhost:<port>` (WebAuthn refuses IP addresses as relying party IDs;
 * with HOST=localhost and no PUBLIC_URL the relying party is the server's own address). The page
 * adds a passkey and signs in with it, no address typed; then an attacker's pass, each answer
 * produced by the same browser and authenticator and sent as an attacker would: a challenge used
 * twice, another account's challenge, a registration's challenge at a sign-in, a removed passkey, a
 * counter that went backwards, no user verification. On every store but SQLite (SERVER_STORES: the
 * passkey repositories are the store contract's; what the browser does is the same on every store).
 */
// @module-tag process
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import type { RunningServer } from '@sl-accounts/server';
import { browserNote, useChromium } from '../support/browser.ts';
import { request, sessionFrom } from '../support/client.ts';
import { capturingLogger } from '../support/logger.ts';
import { poll } from '../support/poll.ts';
import { confirmTokens, nextResetToken, resetTokens } from '../support/reset-mail.ts';
import { HOST_KINDS, SERVER_STORES, startTestServer } from '../support/server.ts';

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
for (const store of SERVER_STORES) {
describe.skipIf(store.skip !== undefined)(`passkeys in headless Chromium with a virtual authenticator, on the ${HOST_KINDS[0]} host, ${store.title}${browserNote}`, () => {
  const { launched } = useChromium();
  let server: RunningServer;
  let lines: string[];
  let origin: string;
  beforeAll(async () => {
    const captured = capturingLogger('info');
    lines = captured.lines;
    // Every account of the suite signs up from this one address: more than the default 10 an hour.
    server = await startTestServer({ host: HOST_KINDS[0], store: store.kind, env: { HOST: 'localhost', MAIL_POLL_MS: '20' }, logger: captured.logger, rateLimits: { signup: { limit: 30, windowMs: 60 * 60_000 } } });
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
  /**
   * How many mails to `email` have `subject` in theirs, once there are at least `count` (or 10 s
   * passed): the mail leaves through the outbox after the answer, so a count taken at once can
   * miss the newest.
   */
  const mailed = async (email: string, subject: string, count = 1) =>
    (await poll(async () => mailsTo(email).filter((s) => s.includes(subject)), (found) => found.length >= count, 10_000)).length;

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
  /** The registration's options, for the owner's proof (issue 39: the password, and with a factor on a code, recovery code or passkey answer). */
  const registrationOptions = async (page: Page, proof: Json) => {
    const answer = await fromPage(page, 'POST', '/api/passkeys/registration-options', proof);
    expect(answer.status).toBe(200);
    return (answer.body as { options: Json }).options;
  };
  /** The recovery codes each account's first passkey brought, by passkey id. */
  const codesOf = new Map<string, string[]>();
  /** Registers a passkey through the API from the page (the authenticator makes it), with the owner's proof. */
  async function register(page: Page, name: string, proof: Json, changes: Json = {}): Promise<string> {
    const response = await create(page, await registrationOptions(page, proof), changes);
    const answer = await fromPage(page, 'POST', '/api/passkeys', { name, response });
    expect(answer.status).toBe(201);
    const { passkey, recoveryCodes } = answer.body as { passkey: { id: string }; recoveryCodes?: string[] };
    if (recoveryCodes) codesOf.set(passkey.id, recoveryCodes);
    return passkey.id;
  }
  /** An answer of the page's passkey to a step-up challenge: the proof of an add or a removal. */
  async function passkeyProof(page: Page): Promise<Json> {
    const options = await fromPage(page, 'POST', '/api/passkeys/step-up-options');
    expect(options.status).toBe(200);
    return get(page, (options.body as { options: Json }).options);
  }
  /** How many passkeys the virtual authenticator holds: whether the device was asked to make one. */
  const held = async (b: Browsing) => (await b.cdp.send('WebAuthn.getCredentials', { authenticatorId: b.authenticatorId })).credentials.length;
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
    // The proof first (issue 39): the password, before the device is asked.
    await page.getByLabel('Your password').fill(ADA.password);
    await page.getByLabel('Name of the new passkey').fill('Laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('status').filter({ hasText: 'Passkey added' }).waitFor({ timeout: 15_000 });
    expect(await status(page)).toBe('Passkey added: Laptop. Every other session of the account was signed out.');
    expect(await page.locator('#passkeys li span').allInnerTexts()).toEqual([expect.stringMatching(/^Laptop \(added \d{4}-\d\d-\d\d, never used\)$/)]);
    // The account's first factor: its recovery codes, shown this once.
    const recoveryCodes = await page.locator('#recovery-codes li').allInnerTexts();
    expect(recoveryCodes).toHaveLength(10);
    expect((await request(origin, '/api/me', { session: elsewhere })).status).toBe(401);
    expect(await mailed(ADA.email, 'A passkey was added to your account')).toBe(1);
    // The page's own session stayed.
    expect((await fromPage(page, 'GET', '/api/me')).status).toBe(200);

    expect((await fromPage(page, 'POST', '/api/logout')).status).toBe(200);
    await context.clearCookies();
    // The login from elsewhere above came from a new device: its notice first, so the count below is of the mails before this sign-in.
    const newDevice = await mailed(ADA.email, 'New sign-in');
    await page.reload({ waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('status').filter({ hasText: 'Signed in' }).waitFor({ timeout: 15_000 });
    expect(await status(page)).toBe(`Signed in as ${ADA.email}.`);
    const me = await fromPage(page, 'GET', '/api/me');
    expect(me).toEqual({ status: 200, body: { ok: true, user: expect.objectContaining({ email: ADA.email }) } });
    // No device cookie was left: a new device, told as a login would tell it; the answer set one for next time.
    expect(await mailed(ADA.email, 'New sign-in', newDevice + 1)).toBe(newDevice + 1);
    expect((await context.cookies()).filter((c) => c.name === 'sl_device').map((c) => c.path).sort()).toEqual(['/api/login', '/api/passkeys/sign-in']);
    expect(await page.locator('#passkeys li span').allInnerTexts()).toEqual([expect.stringMatching(/^Laptop \(added .*, last used \d{4}-\d\d-\d\d\)$/)]);
    // Shown once: not after a reload.
    expect(await page.locator('#recovery').isHidden()).toBe(true);

    // Renamed, then removed: a notice, and the passkey signs in no more.
    const [listed] = ((await fromPage(page, 'GET', '/api/passkeys')).body as { passkeys: { id: string }[] }).passkeys;
    expect(await fromPage(page, 'PATCH', `/api/passkeys/${listed!.id}`, { name: '  Work laptop ' })).toEqual({ status: 200, body: { ok: true, passkey: expect.objectContaining({ id: listed!.id, name: 'Work laptop' }) } });
    // Removing it needs the proof in the request: the password and a factor (here a recovery code).
    const proof = { password: ADA.password, recoveryCode: recoveryCodes[0] };
    expect((await fromPage(page, 'DELETE', `/api/passkeys/${listed!.id}`, proof)).status).toBe(200);
    expect((await fromPage(page, 'DELETE', `/api/passkeys/${listed!.id}`, proof)).status).toBe(404);
    expect(await mailed(ADA.email, 'A passkey was removed from your account')).toBe(1);
    expect(((await fromPage(page, 'GET', '/api/passkeys')).body as { passkeys: unknown[] }).passkeys).toEqual([]);
    await context.close();
  });

  it('with a passkey on, the password alone opens nothing: the login answers 202 and the passkey finishes it; adding another needs a factor in the request, which a passkey gives', { timeout: 90_000 }, async (ctx) => {
    const { context, page } = await browse(ctx);
    const who = { ...ADA, email: 'factor@example.com' };
    await signUp(page, who);
    await register(page, 'First', { password: who.password });
    // With a factor on, the password alone gets no options for a second passkey (issue 39: nor does a step-up window).
    const refused = await fromPage(page, 'POST', '/api/passkeys/registration-options', { password: who.password });
    expect(refused).toEqual({ status: 403, body: expect.objectContaining({ ok: false, code: 'second_factor_required' }) });
    await stepUp(page);
    expect((await fromPage(page, 'POST', '/api/passkeys/registration-options', { password: who.password })).status).toBe(403);
    // (One virtual authenticator holds one passkey per account: the second replaces the first there.)
    await register(page, 'Second', { password: who.password, passkey: await passkeyProof(page) }, { excludeCredentials: [] });

    expect((await fromPage(page, 'POST', '/api/logout')).status).toBe(200);
    await context.clearCookies();
    const first = await fromPage(page, 'POST', '/api/login', { email: who.email, password: who.password });
    // The first passkey brought recovery codes: the 202 says either finishes the login (issue 39).
    expect(first).toEqual({ status: 202, body: { ok: true, secondFactor: { methods: ['recovery', 'passkey'], expiresAt: expect.any(String) } } });
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
    // The login's second step was a step-up, which is not enough to remove a passkey: the proof goes in the request.
    const [oldest] = ((await fromPage(page, 'GET', '/api/passkeys')).body as { passkeys: { id: string }[] }).passkeys;
    expect((await fromPage(page, 'DELETE', `/api/passkeys/${oldest!.id}`, { password: who.password })).status).toBe(403);
    expect((await fromPage(page, 'DELETE', `/api/passkeys/${oldest!.id}`, { password: who.password, passkey: await passkeyProof(page) })).status).toBe(200);
    await context.close();
  });

  it('a password change racing a passkey add: the credential generation lets one of them win, never both', { timeout: 60_000 }, async (ctx) => {
    const { context, page } = await browse(ctx);
    const who = { ...ADA, email: 'race@example.com' };
    await signUp(page, who);
    const elsewhere = sessionFrom(await request(origin, '/api/login', { json: { email: who.email, password: who.password } }))!;
    const response = await create(page, await registrationOptions(page, { password: who.password }));
    const newPassword = 'a password set in a race';
    const [added, changed] = await Promise.all([
      fromPage(page, 'POST', '/api/passkeys', { name: 'Raced', response }),
      request(origin, '/api/password', { json: { currentPassword: who.password, newPassword }, session: elsewhere }),
    ]);
    expect([added.status === 201, changed.status === 200].filter(Boolean)).toHaveLength(1);
    // What the store holds agrees with the one that won.
    const login = await request(origin, '/api/login', { json: { email: who.email, password: added.status === 201 ? who.password : newPassword } });
    expect(login.status).toBe(added.status === 201 ? 202 : 200);
    await context.close();
  });

  if (store.kind === 'memory') describe('the page asks for the proof before the device (issue 39, row 8)', () => {
    it('it says who is signed in; without the password, or with a wrong one, the device is never asked; the first passkey shows its recovery codes once', { timeout: 90_000 }, async (ctx) => {
      const browsing = await browse(ctx);
      const { page } = browsing;
      const who = { ...ADA, email: 'page@example.com' };
      await signUp(page, who);
      await page.reload({ waitUntil: 'networkidle' });
      expect(await page.locator('#account').innerText()).toBe(`Signed in as ${who.email}.`);
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.getByRole('status').filter({ hasText: 'password' }).waitFor({ timeout: 15_000 });
      expect(await status(page)).toBe('Type your password first: adding or removing a passkey needs it.');
      await page.getByLabel('Your password').fill('not the password');
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.getByRole('status').filter({ hasText: 'wrong' }).waitFor({ timeout: 15_000 });
      expect(await status(page)).toBe('The password is wrong. Type the password of this account, then try again.');
      expect(await held(browsing)).toBe(0);
      await page.getByLabel('Your password').fill(who.password);
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.getByRole('status').filter({ hasText: 'Passkey added' }).waitFor({ timeout: 15_000 });
      expect(await held(browsing)).toBe(1);
      expect(await page.locator('#recovery').isVisible()).toBe(true);
      const codes = await page.locator('#recovery-codes li').allInnerTexts();
      expect(codes).toHaveLength(10);
      for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/);

      // A second one: the password alone is refused before the device is asked, and the page says what it needs.
      await page.getByLabel('Your password').fill(who.password);
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.getByRole('status').filter({ hasText: 'second factor' }).waitFor({ timeout: 15_000 });
      expect(await status(page)).toContain('Your account has a second factor on: type a current code from your authenticator app or one of your recovery codes, or press “Confirm with one of your passkeys”');
      expect(await held(browsing)).toBe(1);
      // The step-up it offers: a passkey's answer, then the add. This device holds the account's passkey
      // already (the options exclude it): the browser's InvalidStateError, as a sentence.
      await page.getByRole('button', { name: 'Confirm with one of your passkeys' }).click();
      await page.getByRole('status').filter({ hasText: 'Confirmed with your passkey' }).waitFor({ timeout: 15_000 });
      await page.getByLabel('Your password').fill(who.password);
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.getByRole('status').filter({ hasText: 'holds a passkey' }).waitFor({ timeout: 15_000 });
      expect(await status(page)).toBe('This device holds a passkey for this account already. Use that one, or add a passkey on another device.');
      // A wrong code, then removal with a recovery code typed in the page.
      await page.getByLabel('Your password').fill(who.password);
      await page.getByLabel(/Code from your authenticator app/).fill('000000');
      await page.getByRole('button', { name: /^Remove / }).click();
      await page.getByRole('status').filter({ hasText: 'not accepted' }).waitFor({ timeout: 15_000 });
      expect(await status(page)).toBe('That code was not accepted: it is wrong, or was used already. Type the current code, or an unused recovery code.');
      await page.getByLabel('Your password').fill(who.password);
      await page.getByLabel(/Code from your authenticator app/).fill(codes[0]!);
      await page.getByRole('button', { name: /^Remove / }).click();
      await page.getByRole('status').filter({ hasText: 'Passkey removed' }).waitFor({ timeout: 15_000 });
      expect(((await fromPage(page, 'GET', '/api/passkeys')).body as { passkeys: unknown[] }).passkeys).toEqual([]);
      // Signed out, a passkey the device does not hold: NotAllowedError, as a sentence.
      expect((await fromPage(page, 'POST', '/api/logout')).status).toBe(200);
      await browsing.context.clearCookies();
      await browsing.cdp.send('WebAuthn.clearCredentials', { authenticatorId: browsing.authenticatorId });
      await page.reload({ waitUntil: 'networkidle' });
      expect(await page.locator('#account').innerText()).toBe('Not signed in: sign in with a passkey, or log in, to add passkeys.');
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('status').filter({ hasText: 'cancelled' }).waitFor({ timeout: 90_000 });
      expect(await status(page)).toBe('The passkey request was cancelled, timed out, or not allowed. Nothing was changed: try again when ready.');
      await browsing.context.close();
    });
  });

  if (store.kind === 'memory') describe('the page words every WebAuthn error (issue 39, row 8)', () => {
    it('each error the device can answer with is a sentence, never its bare name', { timeout: 60_000 }, async (ctx) => {
      const { context, page } = await browse(ctx);
      await signUp(page, { ...ADA, email: 'errors@example.com' });
      await page.reload({ waitUntil: 'networkidle' });
      const sentences: Record<string, string> = {
        NotAllowedError: 'The passkey request was cancelled, timed out, or not allowed. Nothing was changed: try again when ready.',
        InvalidStateError: 'This device holds a passkey for this account already. Use that one, or add a passkey on another device.',
        AbortError: 'The passkey request was interrupted before it finished. Try again.',
        SecurityError: 'The browser does not allow passkeys at this address. Open the service at its own address (https, or localhost), then try again.',
        NotSupportedError: 'This device cannot make the kind of passkey the service needs (one that stays on the device and verifies you).',
        ConstraintError: 'This device cannot verify you: set up a PIN, fingerprint or face on it, then try again.',
        UnknownError: 'The device reported a problem. Try again, or use another device.',
        SomethingNewError: 'The passkey could not be used. Try again, or use another device.',
      };
      for (const [name, sentence] of Object.entries(sentences)) {
        // The device answers with this error (the page's own options and proof go first, as always).
        await page.evaluate((name) => {
          const credentials = (globalThis as unknown as { navigator: { credentials: object } }).navigator.credentials;
          Object.defineProperty(credentials, 'create', { configurable: true, value: () => Promise.reject(new DOMException('from the device', name)) });
        }, name);
        await page.getByLabel('Your password').fill(ADA.password);
        await page.getByRole('button', { name: 'Add a passkey' }).click();
        expect(await poll(() => status(page), (text) => text === sentence, 10_000), name).toBe(sentence);
      }
      await context.close();
    });
  });

  if (store.kind === 'memory') describe('a stolen session, and an owner who lost the passkey (issue 39, rows 1 and 2)', () => {
    it('a session copied into another browser gets no registration options without the password: the thief’s device is never asked, and the owner keeps the account', { timeout: 60_000 }, async (ctx) => {
      const owner = await browse(ctx);
      const who = { ...ADA, email: 'stolen@example.com' };
      await signUp(owner.page, who);
      const thief = await browse(ctx);
      await thief.context.addCookies((await owner.context.cookies()).filter((c) => c.name === 'sl_session'));
      expect((await fromPage(thief.page, 'GET', '/api/me')).status).toBe(200);
      expect((await fromPage(thief.page, 'POST', '/api/passkeys/registration-options', {})).status).toBe(400);
      expect(await fromPage(thief.page, 'POST', '/api/passkeys/registration-options', { password: 'a guess at it' })).toEqual({ status: 403, body: expect.objectContaining({ code: 'wrong_password' }) });
      // Through the page, as a thief would try it: the proof is asked for first, the device never.
      await thief.page.reload({ waitUntil: 'networkidle' });
      await thief.page.getByRole('button', { name: 'Add a passkey' }).click();
      await thief.page.getByRole('status').filter({ hasText: 'password' }).waitFor({ timeout: 15_000 });
      expect(await held(thief)).toBe(0);
      expect(((await fromPage(owner.page, 'GET', '/api/passkeys')).body as { passkeys: unknown[] }).passkeys).toEqual([]);
      // The owner's password still signs in with nothing more.
      expect((await request(origin, '/api/login', { json: { email: who.email, password: who.password } })).status).toBe(200);
      await thief.context.close();
      await owner.context.close();
    });

    it('an owner whose only factor is a lost passkey: a reset keeps the factor (the inbox alone is no way around it), a recovery code finishes the login', { timeout: 60_000 }, async (ctx) => {
      const { context, page } = await browse(ctx);
      const who = { ...ADA, email: 'lost@example.com' };
      await signUp(page, who);
      const id = await register(page, 'Only one', { password: who.password });
      const codes = codesOf.get(id)!;
      expect(codes).toHaveLength(10);
      await context.close();
      // The device is lost. A reset through the inbox sets a new password; the passkey stays a factor.
      const seen = resetTokens(lines, who.email).length;
      expect((await request(origin, '/api/password-reset', { json: { email: who.email } })).status).toBe(202);
      const token = await nextResetToken(lines, who.email, seen);
      const password = 'a brand new passphrase';
      expect((await request(origin, '/api/password-reset/confirm', { json: { token, newPassword: password } })).status).toBe(200);
      const challenged = await request(origin, '/api/login', { json: { email: who.email, password } });
      expect(challenged.status).toBe(202);
      expect((challenged.body as { secondFactor: { methods: string[] } }).secondFactor.methods).toEqual(['recovery', 'passkey']);
      const challenge = challenged.setCookies.map((c) => /^sl_login=([^;]+)/.exec(c)?.[1]).find(Boolean);
      const finished = await request(origin, '/api/login/second-factor', { json: { recoveryCode: codes[0] }, headers: { cookie: `sl_login=${challenge}` } });
      expect(finished.status).toBe(200);
      expect(finished.body).toEqual({ ok: true, user: expect.objectContaining({ email: who.email }), recoveryCodesLeft: 9 });
      // Signed in again, the owner removes the lost passkey with the password and another recovery code.
      const session = sessionFrom(finished)!;
      expect((await request(origin, `/api/passkeys/${id}`, { method: 'DELETE', json: { password, recoveryCode: codes[1] }, session })).status).toBe(200);
      expect((await request(origin, '/api/login', { json: { email: who.email, password } })).status).toBe(200);
    });
  });

  if (store.kind === 'memory') describe('an attacker’s pass', () => {
    it('a sign-in answer sent twice: the first signs in, the second is refused (the challenge works once)', { timeout: 60_000 }, async (ctx) => {
      const { context, page } = await browse(ctx);
      await signUp(page, { ...ADA, email: 'replay@example.com' });
      await register(page, 'Replayed', { password: ADA.password });
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
      const adas = await create(page, await registrationOptions(page, { password: ADA.password }));
      const asBob = await request(origin, '/api/passkeys', { json: { response: adas }, session: bob });
      expect(asBob.status).toBe(400);
      expect((asBob.body as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['response']);
      expect((await request(origin, '/api/passkeys', { session: bob })).body).toEqual({ ok: true, passkeys: [] });
      // Bob's attempt used the challenge up: Ada cannot finish with it either.
      expect((await fromPage(page, 'POST', '/api/passkeys', { response: adas })).status).toBe(400);
      // A registration's challenge answered as a sign-in's (the client chose the challenge it signs).
      const id = await register(page, 'Mine', { password: ADA.password });
      const registering = await registrationOptions(page, { password: ADA.password, recoveryCode: codesOf.get(id)![0] });
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
      const id = await register(page, 'Lost phone', { password: ADA.password });
      // Removing a factor needs the factor in the request: without one, refused; a step-up window is not enough.
      expect((await fromPage(page, 'DELETE', `/api/passkeys/${id}`, { password: ADA.password })).status).toBe(403);
      await stepUp(page);
      expect((await fromPage(page, 'DELETE', `/api/passkeys/${id}`, { password: ADA.password })).status).toBe(403);
      expect((await fromPage(page, 'DELETE', `/api/passkeys/${id}`, { password: ADA.password, passkey: await passkeyProof(page) })).status).toBe(200);
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
      const id = await register(page, 'Cloned', { password: ADA.password });
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
      const id = await register(page, 'Verified once', { password: ADA.password });
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
      const made = await create(page, await registrationOptions(page, { password: ADA.password, recoveryCode: codesOf.get(id)![0] }), { authenticatorSelection: { residentKey: 'required', userVerification: 'discouraged' }, excludeCredentials: [] });
      // The authenticator data of a registration: the UV flag (bit 2 of byte 32) is off here too.
      expect(Buffer.from(String((made.response as Json).authenticatorData), 'base64url')[32]! & 0x04).toBe(0);
      expect((await fromPage(page, 'POST', '/api/passkeys', { response: made })).status).toBe(400);
      expect(((await fromPage(page, 'GET', '/api/passkeys')).body as { passkeys: unknown[] }).passkeys).toHaveLength(1);
      await context.close();
    });
  });
});
}
