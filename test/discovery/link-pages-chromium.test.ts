/**
 * The mailed links' own pages in headless Chromium (issue 32), as a person meets them with `pnpm
 * start`'s host under BASE_PATH and no VERIFY_URL or RESET_URL: the link is taken from the log as the
 * log mailer wrote it and followed. The verification page confirms only on a click; the reset page
 * asks for the password twice, announces the difference and the contract's own errors, sets it; the
 * browser then logs in with it, sending the device cookie the reset set for that login.
 */
// @module-tag process
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RunningServer } from '@sl-accounts/server';
import { browserNote, useChromium } from '../support/browser.ts';
import { request, sessionFrom } from '../support/client.ts';
import { capturingLogger } from '../support/logger.ts';
import { nextMailedLink } from '../support/reset-mail.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };
const BASE = '/accounts';

describe(`the mailed links’ pages in headless Chromium on the ${HOST_KINDS[0]} host under ${BASE}${browserNote}`, () => {
  const { launched } = useChromium();
  let server: RunningServer;
  let lines: string[];
  let session: string;
  beforeAll(async () => {
    const captured = capturingLogger('info');
    lines = captured.lines;
    server = await startTestServer({ host: HOST_KINDS[0], env: { BASE_PATH: BASE, MAIL_POLL_MS: '20' }, logger: captured.logger });
    session = sessionFrom(await request(server.url, `${BASE}/api/signup`, { json: ADA, basePath: BASE }))!;
  });
  afterAll(() => server?.close());

  const verified = async () => ((await request(server.url, `${BASE}/api/me`, { session, basePath: BASE })).body as { user: { emailVerified: boolean } }).user.emailVerified;
  /** Watches a page: every failed request or 4xx/5xx, every request to another origin, every policy violation. */
  const watch = (page: Page, problems: string[]) => {
    page.on('requestfailed', (r) => problems.push(`${r.url()}: ${r.failure()?.errorText}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) problems.push(`foreign request ${r.url()}`);
    });
    page.on('console', (m) => {
      if (/Content Security Policy|error/i.test(m.text())) problems.push(`console: ${m.text()}`);
    });
  };
  const status = (page: Page) => page.locator('#status').innerText();
  /** Puts the account's session cookie (of its signup) in the page's browser: the browser signed in to the account. */
  const signedIn = (page: Page, token: string) => page.context().addCookies([{ name: 'sl_session', value: token, url: server.url }]);

  it('the verification link: opening it confirms nothing; the button does, and says so', { timeout: 60_000 }, async (ctx) => {
    const context = await launched(ctx).newContext();
    const link = await nextMailedLink(lines, ADA.email, 'confirm');
    expect(link.startsWith(`${server.url}${BASE}/verify-email?token=`)).toBe(true);
    // In a browser not signed in to the account, the button confirms nothing (a link proves the inbox,
    // not who holds the account), and the page says to sign in; the link stays usable.
    const outside = await context.newPage();
    await outside.goto(link, { waitUntil: 'networkidle' });
    await outside.getByRole('button', { name: 'Confirm the address' }).click();
    await outside.getByRole('status').filter({ hasText: 'Sign in to the account in this browser' }).waitFor({ timeout: 10_000 });
    expect(await verified()).toBe(false);
    // Signed in from this browser (the page's own origin), the link is opened again.
    const login = await outside.evaluate(
      async ([url, email, password]) => (await fetch(url!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) })).status,
      [`${BASE}/api/login`, ADA.email, ADA.password],
    );
    expect(login).toBe(200);
    await outside.close();
    const page = await context.newPage();
    const problems: string[] = [];
    watch(page, problems);
    await page.goto(link, { waitUntil: 'networkidle' });
    // The token is gone from the address bar and the history, and the page confirmed nothing.
    expect(page.url()).toBe(`${server.url}${BASE}/verify-email`);
    expect(await verified()).toBe(false);
    expect(await page.getByRole('heading', { name: 'Confirm your address' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Confirm the address' }).click();
    await page.getByRole('status').filter({ hasText: 'Confirmed' }).waitFor({ timeout: 10_000 });
    expect(await status(page)).toBe(`Confirmed: ${ADA.email} is the address of your account.`);
    expect(await verified()).toBe(true);
    // The same link again: the contract's answer, shown.
    await page.goto(link, { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Confirm the address' }).click();
    await page.getByRole('status').filter({ hasText: 'unknown, used or expired' }).waitFor({ timeout: 10_000 });
    expect(problems.filter((p) => !p.includes('400'))).toEqual([]);
    await context.close();
  });

  it('the reset link: the password twice, the differences and the contract’s errors announced, then set; the browser logs in with it', { timeout: 60_000 }, async (ctx) => {
    const context = await launched(ctx).newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    watch(page, problems);
    await request(server.url, `${BASE}/api/password-reset`, { json: { email: ADA.email }, basePath: BASE });
    const link = await nextMailedLink(lines, ADA.email, 'reset');
    expect(link.startsWith(`${server.url}${BASE}/reset-password?token=`)).toBe(true);
    await page.goto(link, { waitUntil: 'networkidle' });
    const password = page.getByLabel('New password', { exact: true });
    const repeat = page.getByLabel('New password, again');
    const submit = page.getByRole('button', { name: 'Set the new password' });

    await password.fill('a new password');
    await repeat.fill('a new passwort');
    await submit.click();
    await page.getByRole('status').filter({ hasText: 'differ' }).waitFor();
    expect(await repeat.getAttribute('aria-invalid')).toBe('true');

    await password.fill('short');
    await repeat.fill('short');
    await submit.click();
    await page.getByRole('status').filter({ hasText: 'password' }).filter({ hasText: '8' }).waitFor({ timeout: 10_000 });
    expect(await status(page)).toMatch(/^Invalid request: newPassword: /);
    expect(await password.getAttribute('aria-invalid')).toBe('true');
    expect(await repeat.getAttribute('aria-invalid')).toBeNull();

    await password.fill('a new password');
    await repeat.fill('a new password');
    await submit.click();
    await page.getByRole('status').filter({ hasText: 'new password is set' }).waitFor({ timeout: 10_000 });
    // The old session ended with the reset.
    expect((await request(server.url, `${BASE}/api/me`, { session, basePath: BASE })).status).toBe(401);

    // Logging in from this browser: it sends the device cookie the reset set, for the login under the base path.
    const sent = new Promise<string>((resolve) => page.on('request', (r) => void (r.url().endsWith(`${BASE}/api/login`) && r.allHeaders().then((h) => resolve(h.cookie ?? '')))));
    const login = await page.evaluate(
      async ([url, email]) => {
        const res = await fetch(url!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'a new password' }) });
        return { status: res.status, body: await res.json() };
      },
      [`${BASE}/api/login`, ADA.email],
    );
    expect(login).toMatchObject({ status: 200, body: { ok: true, user: { email: ADA.email } } });
    expect(await sent).toMatch(/sl_device=/);
    expect(problems.filter((p) => !p.includes('400'))).toEqual([]);
    await context.close();
  });

  it('by keyboard, focus moves to the message after each outcome: confirmed, refused, and the new password set (not to the body)', { timeout: 60_000 }, async (ctx) => {
    const page = await launched(ctx).newPage();
    const bea = { name: 'Bea', email: 'bea@example.com', password: 'bea’s first password' };
    // Bea's browser, signed in to her account: where her link counts.
    await signedIn(page, sessionFrom(await request(server.url, `${BASE}/api/signup`, { json: bea, basePath: BASE }))!);
    /** The focused element, as a keyboard or screen-reader user is left on it. */
    const focused = () => page.evaluate('({ id: document.activeElement?.id ?? "", tag: document.activeElement?.tagName ?? "", text: document.activeElement?.textContent ?? "" })') as Promise<{ id: string; tag: string; text: string }>;

    const verify = await nextMailedLink(lines, bea.email, 'confirm');
    await page.goto(verify, { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Confirm the address' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Confirmed' }).waitFor({ timeout: 10_000 });
    await expect.poll(focused, { timeout: 5_000 }).toEqual({ id: 'status', tag: 'P', text: `Confirmed: ${bea.email} is the address of your account.` });

    // The used link: the refusal takes the focus too, and the button is one Tab away again.
    await page.goto(verify, { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Confirm the address' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'unknown, used or expired' }).waitFor({ timeout: 10_000 });
    await expect.poll(async () => (await focused()).id, { timeout: 5_000 }).toBe('status');

    await request(server.url, `${BASE}/api/password-reset`, { json: { email: bea.email }, basePath: BASE });
    await page.goto(await nextMailedLink(lines, bea.email, 'reset'), { waitUntil: 'networkidle' });
    await page.getByLabel('New password', { exact: true }).fill('bea’s second password');
    await page.getByLabel('New password, again').fill('bea’s second password');
    await page.getByLabel('New password, again').press('Enter');
    await page.getByRole('status').filter({ hasText: 'new password is set' }).waitFor({ timeout: 10_000 });
    await expect.poll(async () => (await focused()).id, { timeout: 5_000 }).toBe('status');
    expect(await page.locator('#status').isVisible()).toBe(true);
    await page.close();
  });
});
