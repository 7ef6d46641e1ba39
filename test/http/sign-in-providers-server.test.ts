/**
 * The whole sign-in through an OpenID Provider on `pnpm start`'s server (and the node:http host),
 * configured as an operator does (`AUTH_TEST_ISSUER`, `AUTH_TEST_ID`, `AUTH_TEST_SECRET`), on every
 * store of the run (memory, SQLite, PGlite, Postgres): `oidc-provider` on loopback, its login and
 * consent forms filled in by a cookie jar. The server has no PUBLIC_URL here, so the redirect URI is
 * the request's own origin: the requests name `Host: localhost`, the URI the provider has registered.
 */
// @module-tag socket
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browse, startTestProvider, type TestProvider } from '../support/oidc-provider.ts';
import type { RunningServer } from '@sl-accounts/server';
import { describeEachServer, MATRIX, startTestServer } from '../support/server.ts';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startTestProvider(['http://localhost/api/sign-in/test/callback'], { grace: { email: 'grace@example.com', email_verified: true, name: 'Grace Hopper' } });
});
afterAll(() => provider.close());

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request to the server, as a browser at `http://localhost` sends it (the Host the redirect URI names). */
function send(server: RunningServer, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { host: 'localhost', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The value of cookie `name` an answer sets. */
const cookieOf = (answer: Answer, name: string) =>
  ([answer.headers['set-cookie'] ?? []].flat() as string[])
    .map((line) => line.split(';')[0]!)
    .find((pair) => pair.startsWith(`${name}=`))
    ?.slice(name.length + 1);

describeEachServer('sign-in through an identity provider', MATRIX, ({ host, store }) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ host, store, env: { AUTH_TEST_ISSUER: provider.issuer, AUTH_TEST_ID: provider.clientId, AUTH_TEST_SECRET: provider.clientSecret, AUTH_TEST_NAME: 'Test IdP' } });
  });
  afterAll(() => server?.close());

  it('lists the provider, starts, goes through the provider’s forms, and lands signed in with /api/me answering 200', async () => {
    const listed = await send(server, 'GET', '/api/sign-in/providers');
    expect(JSON.parse(listed.body)).toEqual({ ok: true, providers: [{ id: 'test', name: 'Test IdP' }] });
    const started = await send(server, 'POST', '/api/sign-in/test', {}, JSON.stringify({ returnTo: '/welcome' }));
    expect(started.status).toBe(200);
    const state = cookieOf(started, 'sl_oauth');
    expect(state).toBeTruthy();
    const back = await browse((JSON.parse(started.body) as { url: string }).url, 'grace');
    expect(back.origin + back.pathname).toBe('http://localhost/api/sign-in/test/callback');
    const landed = await send(server, 'GET', back.pathname + back.search, { cookie: `sl_oauth=${state}` });
    expect(landed.status).toBe(303);
    expect(landed.headers.location).toBe('/welcome');
    const session = cookieOf(landed, 'sl_session');
    expect(session).toBeTruthy();
    const me = await send(server, 'GET', '/api/me', { cookie: `sl_session=${session}` });
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body).user).toMatchObject({ email: 'grace@example.com', name: 'Grace Hopper', emailVerified: true });
    // The same browser's callback again: its state is used up.
    const replay = await send(server, 'GET', back.pathname + back.search, { cookie: `sl_oauth=${state}` });
    expect(replay.headers.location).toBe('/?error=sign_in_state_invalid');
    expect(cookieOf(replay, 'sl_session')).toBeUndefined();
  });
});
