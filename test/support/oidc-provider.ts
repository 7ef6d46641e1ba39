/**
 * A real OpenID Provider for tests: `oidc-provider` (a certified OpenID Provider implementation)
 * started in the test process on loopback, port 0, with one client for the service and its own
 * development login and consent forms (any login name signs in as that account; the password is
 * not checked). `browse` plays a browser through it: a cookie jar for the provider, following its
 * redirects and submitting its forms, until the provider sends the browser back to the service.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** What the provider says of each person it signs in, by login name. */
export type TestPeople = Record<string, { readonly email?: string; readonly email_verified?: boolean; readonly name?: string }>;

export interface TestProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly people: TestPeople;
  close(): Promise<void>;
}

/** Starts an oidc-provider whose client may be sent back to each of `redirectUris`. */
export async function startTestProvider(redirectUris: readonly string[], people: TestPeople = {}): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'sl-accounts';
  const clientSecret = 'a-test-client-secret-of-enough-length-for-hs256';
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [...redirectUris], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['a-test-cookie-key'] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, id) {
      return { accountId: id, claims: async () => ({ sub: id, ...people[id] }) };
    },
  });
  // The development keys and interactions warn once each: expected here.
  provider.on('server_error', () => {});
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    people,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A browser's cookies for one origin (the provider's): name to value. */
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
}

/**
 * Follows the browser from the provider's authorization URL through its login and consent forms
 * (signing in as `login`) until a redirect leaves the provider: answers that URL (the service's
 * callback with `code`, `state` and `iss`, or with `error`).
 */
export async function browse(authorizationUrl: string, login: string, jar = new CookieJar()): Promise<URL> {
  let url = new URL(authorizationUrl);
  const origin = url.origin;
  let form: URLSearchParams | null = null;
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: form.toString() } : {}),
    });
    jar.take(response);
    form = null;
    const location = response.headers.get('location');
    if (location) {
      url = new URL(location, url);
      if (url.origin !== origin) return url;
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`the provider answered ${response.status} without a form: ${html.slice(0, 300)}`);
    url = new URL(action.replaceAll('&amp;', '&'), url);
    form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt });
  }
  throw new Error('the provider never sent the browser back');
}
