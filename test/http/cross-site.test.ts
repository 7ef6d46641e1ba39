/**
 * A page on another site cannot spend its visitors' limits: what a browser lets such a page send is
 * refused before it is counted (issue 9).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { freshIp, request, sessionFrom } from '../support/client.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

describe.each(HOST_KINDS)('cross-site requests on the %s host', (host) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const LOGIN = { email: 'visitor@example.com', password: 'wrong password' };

  it('20 no-cors form posts from a foreign page are refused uncounted; the visitor can still log in', async () => {
    server = await startTestServer({ host });
    for (let i = 0; i < 25; i++) {
      const res = await request(server.url, '/api/login', {
        raw: JSON.stringify(LOGIN),
        headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
      expect(res.headers.get('ratelimit')).toBeNull();
    }
    const own = await request(server.url, '/api/login', { json: LOGIN, headers: { origin: server.url, 'sec-fetch-site': 'same-origin' } });
    expect(own.status).toBe(401);
    expect(own.headers.get('ratelimit')).toMatch(/^"login";r=19;/);
  });

  it.each([
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site', origin: 'https://other.example.com' }],
    ['a foreign Origin from an older browser', { origin: 'https://evil.example' }],
    ['Origin: null (a sandboxed frame)', { origin: 'null' }],
    ['an Origin on another port', { origin: 'http://127.0.0.1:1' }],
  ])('%s: 403 with a JSON body too, and not counted', async (_label, headers) => {
    server = await startTestServer({ host });
    for (const path of ['/api/login', '/api/signup', '/api/contact']) {
      for (let i = 0; i < 21; i++) {
        const res = await request(server.url, path, { json: LOGIN, headers });
        expect(res.status, path).toBe(403);
        expect(res.headers.get('ratelimit')).toBeNull();
      }
    }
    expect((await request(server.url, '/api/login', { json: LOGIN })).headers.get('ratelimit')).toMatch(/^"login";r=19;/);
  });

  it('other content types are still 400, now before counting: text/plain, forms, multipart, none', async () => {
    server = await startTestServer({ host });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
      for (let i = 0; i < 6; i++) {
        const res = await request(server.url, '/api/contact', { raw: '{}', headers: type ? { 'content-type': type } : {} });
        expect(res.status, type).toBe(400);
        expect(res.body).toEqual({ ok: false, error: 'Content-Type must be application/json', code: 'json_required' });
        expect(res.headers.get('ratelimit')).toBeNull();
      }
    }
    expect((await request(server.url, '/api/contact', { json: {} })).headers.get('ratelimit')).toMatch(/^"contact";r=4;/);
  });

  it('serves its own pages, requests without browser headers, and the PUBLIC_URL origin', async () => {
    server = await startTestServer({ host, env: { PUBLIC_URL: 'https://accounts.example.org' } });
    for (const headers of [{}, { 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }, { origin: 'https://accounts.example.org' }, { origin: 'https://ACCOUNTS.example.org:443' }] as Record<string, string>[]) {
      expect((await request(server.url, '/api/login', { json: LOGIN, headers })).status, JSON.stringify(headers)).toBe(401);
    }
    // With PUBLIC_URL set, the service's origin is that one, not the address it was reached at.
    expect((await request(server.url, '/api/login', { json: LOGIN, headers: { origin: server.url } })).status).toBe(403);
  });

  it('without PUBLIC_URL its own origin is the request’s (a trusted proxy’s forwarded one included)', async () => {
    server = await startTestServer({ host, env: { TRUST_PROXY: '1' } });
    expect((await request(server.url, '/api/login', { json: LOGIN, headers: { origin: server.url } })).status).toBe(401);
    const forwarded = { 'x-forwarded-host': 'accounts.example.org', 'x-forwarded-proto': 'https' };
    expect((await request(server.url, '/api/login', { json: LOGIN, headers: { ...forwarded, origin: 'https://accounts.example.org' } })).status).toBe(401);
    expect((await request(server.url, '/api/login', { json: LOGIN, headers: { ...forwarded, origin: server.url } })).status).toBe(403);
  });
  it('the address’s and the name’s operations refuse them too, before they count, check a password, mail or change anything', async () => {
    server = await startTestServer({ host });
    const email = `v${freshIp()}@example.com`;
    const signed = await request(server.url, '/api/signup', { json: { name: 'Visitor', email, password: 'correct horse' }, ip: freshIp() });
    const session = sessionFrom(signed)!;
    const foreign = { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' };
    for (const [method, path, json] of [
      ['PATCH', '/api/me', { name: 'Renamed by evil' }],
      ['POST', '/api/email', { newEmail: 'evil@example.net', password: 'correct horse' }],
      ['POST', '/api/email-verification', undefined],
      ['POST', '/api/email-verification/confirm', { token: 'a-token-from-somewhere' }],
    ] as const) {
      for (const headers of [foreign, { origin: 'https://evil.example' }, { 'sec-fetch-site': 'same-site', origin: 'https://other.example.com' }]) {
        const res = await request(server.url, path, { method, session, headers, ...(json === undefined ? {} : { json }) });
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
        expect(res.headers.get('ratelimit')).toBeNull();
      }
    }
    // Nothing changed, and nothing was counted: the account's link limit is whole.
    expect((await request(server.url, '/api/me', { session })).body).toEqual({ ok: true, user: { id: expect.any(Number), name: 'Visitor', email, emailVerified: false } });
    const own = await request(server.url, '/api/email-verification', { method: 'POST', session, headers: { 'sec-fetch-site': 'same-origin', origin: server.url } });
    expect(own.status).toBe(202);
    expect(own.headers.get('ratelimit')).toContain('"email-link-account";r=2;');
  });

  describe('logout, like every state-changing operation, refuses them before it touches a session or a cookie', () => {
    const signIn = async (url: string) => {
      const res = await request(url, '/api/signup', { json: { name: 'Visitor', email: `v${freshIp()}@example.com`, password: 'correct horse' }, ip: freshIp() });
      expect(res.status).toBe(201);
      return sessionFrom(res)!;
    };
    const alive = async (url: string, token: string) => (await request(url, '/api/me', { session: token })).status === 200;

    it.each([
      ['Sec-Fetch-Site: cross-site, a foreign Origin, a form body', { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, 'a=1'],
      ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site', origin: 'https://other.example.com' }, undefined],
      ['a foreign Origin from an older browser', { origin: 'https://evil.example' }, undefined],
    ])('%s: 403, the session lives on, no cookie is set', async (_label, headers, raw) => {
      server = await startTestServer({ host });
      const token = await signIn(server.url);
      for (const session of [token, undefined]) {
        const res = await request(server.url, '/api/logout', { method: 'POST', headers, ...(raw === undefined ? {} : { raw }), ...(session ? { session } : {}) });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
        expect(res.setCookies).toEqual([]);
      }
      expect(await alive(server.url, token)).toBe(true);
    });

    it('a body a form or a no-cors fetch could send is 400 as at login; none, or JSON, logs out', async () => {
      server = await startTestServer({ host });
      const token = await signIn(server.url);
      for (const [headers, raw] of [
        [{ 'content-type': 'application/x-www-form-urlencoded' }, 'a=1'],
        [{ 'content-type': 'text/plain;charset=UTF-8' }, '{}'],
        [{ 'content-type': 'multipart/form-data; boundary=x' }, '--x--'],
        [{}, 'untyped'],
      ] as [Record<string, string>, string][]) {
        const res = await request(server.url, '/api/logout', { method: 'POST', headers, raw, session: token });
        expect(res.status, JSON.stringify(headers)).toBe(400);
        expect(res.setCookies).toEqual([]);
      }
      expect(await alive(server.url, token)).toBe(true);
      expect((await request(server.url, '/api/logout', { method: 'POST', session: token, headers: { 'sec-fetch-site': 'same-origin', origin: server.url } })).status).toBe(200);
      expect(await alive(server.url, token)).toBe(false);
      const other = await signIn(server.url);
      expect((await request(server.url, '/api/logout', { method: 'POST', json: {}, session: other })).status).toBe(200);
    });
  });
});
