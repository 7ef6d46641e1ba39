/**
 * Signing in through an identity provider as a person does it (issue 42), in headless Chromium:
 * `oidc-provider` (a certified OpenID Provider) on loopback, the service on `pnpm start`'s Koa app at
 * the root and in the Express example (examples/express) under `BASE_PATH=/accounts`, configured as
 * an operator does (`AUTH_TEST_ISSUER`, `AUTH_TEST_ID`, `AUTH_TEST_SECRET`). A tiny
 * page of the service's origin has a "Sign in with Test IdP" button, as a site's own page would: it
 * starts the sign-in (`POST /api/sign-in/test`) and sends the browser to the provider. The person
 * fills in the provider's own login form, continues on its consent form, and the provider sends the
 * browser back to the callback, which lands it signed in: `/api/me` answers 200. On the memory store
 * (the states and accounts are the store contract's, and the cookie-jar suites run every store).
 *
 * The browser goes to the service at `http://localhost:<port>` and to the provider at
 * `http://127.0.0.1:<port>`: two hosts, so neither's cookies reach the other, as on two sites. The
 * redirect URI must be registered with the provider before the service starts, so the service's
 * port is asked of the kernel first (free-port.ts).
 */
// @module-tag process
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { browserNote, useChromium } from '../support/browser.ts';
import { freePort } from '../support/free-port.ts';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

/** The site's own page: one button that starts the sign-in and follows the answer's URL. */
const tinyPage = (base: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head><body>
<button id="sign-in" type="button">Sign in with Test IdP</button>
<p id="problem" role="alert"></p>
<script>
document.getElementById('sign-in').addEventListener('click', async () => {
  const answer = await fetch('${base}/api/sign-in/test', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ returnTo: '${base}/api/me' }) });
  const body = await answer.json();
  if (answer.ok) location.assign(body.url); else document.getElementById('problem').textContent = answer.status + ' ' + body.code;
});
</script></body></html>`;

/** `pnpm start`'s app at the root, and one embedding host (examples/express) under `/accounts`. */
const ROWS = [
  { host: HOST_KINDS[0]!, base: '', at: 'the root' },
  { host: 'express', base: '/accounts', at: '/accounts' },
] as const;

describe.each(ROWS)(`sign-in through an OpenID Provider in headless Chromium, on the $host host at $at${browserNote}`, ({ host, base }) => {
  const { launched } = useChromium();
  let provider: TestProvider;
  let server: RunningServer;
  let origin: string;
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    provider = await startTestProvider([`${origin}${base}/api/sign-in/test/callback`], { grace: { email: 'grace@example.com', email_verified: true, name: 'Grace Hopper' } });
    server = await startTestServer({ host, env: { ...(base ? { BASE_PATH: base } : {}), PORT: String(port), AUTH_TEST_ISSUER: provider.issuer, AUTH_TEST_ID: provider.clientId, AUTH_TEST_SECRET: provider.clientSecret, AUTH_TEST_NAME: 'Test IdP' } });
  });
  afterAll(async () => {
    await server?.close();
    await provider?.close();
  });

  it('a click on the site’s page, the provider’s login and consent forms, and the browser lands signed in: /api/me 200', async (ctx) => {
    const context = await launched(ctx).newContext();
    try {
      const page = await context.newPage();
      // The tiny page at the service's origin (its health route's URL, the page's content replaced).
      await page.goto(`${origin}${base}/api/health`);
      await page.setContent(tinyPage(base));
      await page.click('#sign-in');

      // The provider's own login form.
      await page.waitForURL((url) => url.origin === provider.issuer && url.pathname.startsWith('/interaction/'));
      const callbackCookies = () => context.cookies(`${origin}${base}/api/sign-in/test/callback`);
      // The start's cookie, sent only to the callback's path, waits in the browser.
      expect((await callbackCookies()).find((cookie) => cookie.name === 'sl_oauth')).toMatchObject({ path: `${base}/api/sign-in`, httpOnly: true, sameSite: 'Lax' });
      await page.fill('input[name="login"]', 'grace');
      await page.fill('input[name="password"]', 'any password');
      await Promise.all([page.waitForURL((url) => url.origin === provider.issuer && url.pathname.startsWith('/interaction/')), page.click('button[type="submit"]')]);
      // Its consent form.
      await expect.poll(() => page.locator('input[name="prompt"]').getAttribute('value')).toBe('consent');
      const landed = page.waitForResponse((response) => response.url() === `${origin}${base}/api/me`);
      await page.click('button[type="submit"]');

      const me = await landed;
      expect(me.status()).toBe(200);
      expect(await me.json()).toMatchObject({ ok: true, user: { email: 'grace@example.com', name: 'Grace Hopper', emailVerified: true } });
      expect(new URL(page.url()).href).toBe(`${origin}${base}/api/me`);

      const cookies = await callbackCookies();
      expect(cookies.find((cookie) => cookie.name === 'sl_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      // The state was single-use: its cookie is gone.
      expect(cookies.find((cookie) => cookie.name === 'sl_oauth')).toBeUndefined();
      // And the page's own requests are signed in.
      const again = await page.evaluate(async (path) => (await fetch(path)).status, `${base}/api/me`);
      expect(again).toBe(200);
    } finally {
      await context.close();
    }
  });
});
