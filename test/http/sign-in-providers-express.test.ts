/**
 * Signing in through an identity provider (issue 42) inside an embedding host written as Express
 * users write it: examples/express (`express.json()` for the whole app, the service mounted beside
 * the app's own routes, `requireSession` guarding one of them), the service under `/accounts`
 * (BASE_PATH), configured as an operator does (`AUTH_TEST_ISSUER`, `AUTH_TEST_ID`,
 * `AUTH_TEST_SECRET`). Headless: `oidc-provider` on loopback, its login and consent forms filled in
 * by a cookie jar, and a browser's cookie jar for the service (test/support/cookie-jar.ts: each
 * cookie sent only under its `Path`, as `sl_oauth` is only under `/accounts/api/sign-in`). The
 * browser follows every redirect of the service itself, to the app's own guarded page.
 */
// @module-tag socket
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { CookieJar } from '../support/cookie-jar.ts';
import { browse, startTestProvider, type TestProvider } from '../support/oidc-provider.ts';
import { startTestServer } from '../support/server.ts';

const BASE = '/accounts';

interface Answer {
  readonly status: number;
  readonly location: string | undefined;
  readonly setCookie: readonly string[];
  readonly body: string;
}

describe('sign-in through an OpenID Provider in the Express example, under /accounts', () => {
  let provider: TestProvider;
  let server: RunningServer;
  beforeAll(async () => {
    // No PUBLIC_URL: the redirect URI is the request's origin, and the browser here names `Host: localhost`.
    provider = await startTestProvider([`http://localhost${BASE}/api/sign-in/test/callback`], { grace: { email: 'grace@example.com', email_verified: true, name: 'Grace Hopper' } });
    server = await startTestServer({ host: 'express', env: { BASE_PATH: BASE, AUTH_TEST_ISSUER: provider.issuer, AUTH_TEST_ID: provider.clientId, AUTH_TEST_SECRET: provider.clientSecret, AUTH_TEST_NAME: 'Test IdP' } });
  });
  afterAll(async () => {
    await server?.close();
    await provider?.close();
  });

  /** One request as a browser at `http://localhost` sends it, with the jar's cookies for its path; the jar takes the answer's. */
  function send(jar: CookieJar, method: string, path: string, json?: object): Promise<Answer> {
    const url = new URL(path, server.url);
    const cookie = jar.header(url.pathname);
    const body = json === undefined ? undefined : JSON.stringify(json);
    const headers: Record<string, string> = { host: 'localhost', ...(cookie ? { cookie } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json', origin: 'http://localhost' }) };
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, { method, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const setCookie = [res.headers['set-cookie'] ?? []].flat();
          jar.store(setCookie, url.pathname);
          resolve({ status: res.statusCode ?? 0, location: res.headers.location, setCookie, body: text });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('lists the provider, starts from the app, goes through the provider’s forms, and lands signed in on the app’s own guarded page', async () => {
    const jar = new CookieJar();
    const listed = await send(jar, 'GET', `${BASE}/api/sign-in/providers`);
    expect(JSON.parse(listed.body)).toEqual({ ok: true, providers: [{ id: 'test', name: 'Test IdP' }] });

    // The app's own guarded route refuses the browser before it signs in.
    expect((await send(jar, 'GET', '/hello/me')).status).toBe(401);

    const started = await send(jar, 'POST', `${BASE}/api/sign-in/test`, { returnTo: '/hello/me' });
    expect(started.status).toBe(200);
    expect(started.setCookie.find((line) => line.startsWith('sl_oauth='))).toMatch(new RegExp(`Path=${BASE}/api/sign-in;`));
    const back = await browse((JSON.parse(started.body) as { url: string }).url, 'grace');
    expect(back.origin + back.pathname).toBe(`http://localhost${BASE}/api/sign-in/test/callback`);

    // A link scanner's HEAD first, through Express: it takes nothing.
    const head = await send(new CookieJar(), 'HEAD', back.pathname + back.search);
    expect(head.status).toBe(303);
    expect(head.location).toBe(`${BASE}/`);

    const landed = await send(jar, 'GET', back.pathname + back.search);
    expect(landed.status).toBe(303);
    expect(landed.location).toBe('/hello/me');
    expect(landed.setCookie.some((line) => line.startsWith('sl_session=') && !line.startsWith('sl_session=;'))).toBe(true);

    // The browser follows the redirect to the app's own page, which the service's session guard now lets through.
    const hello = await send(jar, 'GET', landed.location!);
    expect(hello.status).toBe(200);
    expect(JSON.parse(hello.body)).toEqual({ ok: true, hello: 'grace@example.com' });
    const me = await send(jar, 'GET', `${BASE}/api/me`);
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body).user).toMatchObject({ email: 'grace@example.com', name: 'Grace Hopper', emailVerified: true });
    const identities = await send(jar, 'GET', `${BASE}/api/me/identities`);
    expect(JSON.parse(identities.body)).toMatchObject({ ok: true, identities: [{ provider: 'test', subject: 'grace', email: 'grace@example.com' }] });

    // The callback again, from the same browser: its state was single-use, and the cookie is gone.
    expect(jar.header(back.pathname)).not.toMatch(/sl_oauth=/);
    const replay = await send(jar, 'GET', back.pathname + back.search);
    expect(replay.location).toBe(`${BASE}/?error=sign_in_state_invalid`);
  });
});
