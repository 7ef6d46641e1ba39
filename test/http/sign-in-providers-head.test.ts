/**
 * A HEAD to the provider's callback (issue 42): a mail or chat link scanner, or a browser's prefetch,
 * may ask for the callback URL before the person's own browser follows it. The HEAD must neither take
 * the single-use state nor clear the `sl_oauth` cookie, or the person's sign-in would end with
 * `error=sign_in_state_invalid`. Against a real OpenID Provider (`oidc-provider` on loopback, its
 * forms filled in by a cookie jar), the service called in-process on the memory store, at the root
 * and under `/accounts`.
 */
// @module-tag socket
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { createService, type Service } from '@sl-accounts/service';
import { request, testHasher } from '@sl-accounts/service/http/testing';
import { browse, startTestProvider, type TestProvider } from '../support/oidc-provider.ts';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startTestProvider(['http://localhost/api/sign-in/test/callback', 'http://localhost/accounts/api/sign-in/test/callback'], {
    heidi: { email: 'heidi@example.com', email_verified: true, name: 'Heidi' },
  });
});
afterAll(() => provider.close());

function serviceAt(basePath: string): Promise<Service> {
  return createService({
    store: createMemoryStore(),
    hasher: testHasher,
    mcp: false,
    ...(basePath ? { basePath } : {}),
    accounts: { identityProviders: [{ id: 'test', name: 'Test Provider', issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, allowHttp: true }] },
  });
}

describe.each(['', '/accounts'])('HEAD to the provider’s callback (mount %j)', (base) => {
  it('answers 303 without taking the state or touching a cookie; the browser’s GET then signs in', async () => {
    const service = await serviceAt(base);
    try {
      const started = await request<{ url: string }>(service.api, `POST ${base}/api/sign-in/test`, { json: { returnTo: `${base}/welcome` } });
      expect(started.status).toBe(200);
      const state = started.cookies.sl_oauth ?? '';
      expect(state).not.toBe('');
      const back = await browse(started.json.url, 'heidi');
      expect(back.pathname).toBe(`${base}/api/sign-in/test/callback`);
      const target = `${back.pathname}${back.search}`;

      // A scanner without the cookie, and a prefetch with it, each twice.
      for (const cookie of [undefined, { sl_oauth: state }, undefined, { sl_oauth: state }]) {
        const head = await request(service.api, `HEAD ${target}`, cookie ? { cookie } : {});
        expect(head.status).toBe(303);
        expect(head.headers.get('location')).toBe(`${base}/`);
        expect(head.headers.getSetCookie()).toEqual([]);
        expect(head.bytes.byteLength).toBe(0);
      }

      const landed = await request(service.api, `GET ${target}`, { cookie: { sl_oauth: state } });
      expect(landed.status).toBe(303);
      expect(landed.headers.get('location')).toBe(`${base}/welcome`);
      const session = landed.cookies.sl_session ?? '';
      expect(session).not.toBe('');
      const me = await request<{ user: { email: string } }>(service.api, `GET ${base}/api/me`, { cookie: { sl_session: session } });
      expect(me.status).toBe(200);
      expect(me.json.user.email).toBe('heidi@example.com');

      // Once the GET took it, the state stays single-use: a second GET fails, and a HEAD still takes nothing.
      expect((await request(service.api, `HEAD ${target}`, { cookie: { sl_oauth: state } })).status).toBe(303);
      const replay = await request(service.api, `GET ${target}`, { cookie: { sl_oauth: state } });
      expect(replay.headers.get('location')).toBe(`${base}/?error=sign_in_state_invalid`);
      expect(replay.cookies.sl_session).toBeUndefined();
    } finally {
      await service.close();
    }
  });

  it('answers 404 unknown_provider to a HEAD for a provider not configured, as the GET does', async () => {
    const service = await serviceAt(base);
    try {
      const head = await request(service.api, `HEAD ${base}/api/sign-in/nobody/callback?code=x&state=y`);
      const get = await request<{ code: string }>(service.api, `GET ${base}/api/sign-in/nobody/callback?code=x&state=y`);
      expect(get.status).toBe(404);
      expect(get.json.code).toBe('unknown_provider');
      expect(head.status).toBe(404);
      expect(head.bytes.byteLength).toBe(0);
    } finally {
      await service.close();
    }
  });
});
