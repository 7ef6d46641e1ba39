/**
 * Every error answer names what went wrong in a machine-readable `code` (issue 32): a client tells
 * a wrong password from a cross-site refusal, both 403, and an unverified address from either,
 * without reading the `error` text. Store-independent: once, on the first host and the memory store.
 * Also a state change whose only sign of its page is a foreign `Referer` (issue 32): refused as a
 * foreign `Origin` is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { createService } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { testHasher } from '@sl-accounts/service/http/testing';
import { freshIp, request, sessionFrom } from '../support/client.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

describe(`error codes on the ${HOST_KINDS[0]} host`, () => {
  let server: RunningServer;
  let session: string;
  const email = `codes.${Date.now()}@example.com`;
  const password = 'correct horse battery';
  beforeAll(async () => {
    server = await startTestServer({ host: HOST_KINDS[0] });
    const signup = await request(server.url, '/api/signup', { json: { name: 'Codes', email, password }, ip: freshIp() });
    session = sessionFrom(signup)!;
  });
  afterAll(() => server?.close());

  it('tells a wrong password from a cross-site request, both 403', async () => {
    const wrong = await request(server.url, '/api/password', { json: { currentPassword: 'not the password', newPassword: 'another long one' }, session });
    expect(wrong).toMatchObject({ status: 403, body: { ok: false, code: 'wrong_password' } });
    const foreign = await request(server.url, '/api/password', { json: { currentPassword: password, newPassword: 'another long one' }, session, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(foreign).toMatchObject({ status: 403, body: { ok: false, code: 'cross_site' } });
  });

  it('names each failure a client meets: login, session, conflict, routing, bodies, limits', async () => {
    const cases: [string, Parameters<typeof request>[2], number, string][] = [
      ['/api/login', { json: { email, password: 'wrong password' } }, 401, 'invalid_credentials'],
      ['/api/me', {}, 401, 'unauthenticated'],
      ['/api/signup', { json: { name: 'Codes', email, password } }, 409, 'email_taken'],
      ['/api/signup', { json: { name: 'C', email: 'x@example.com', password } }, 400, 'validation'],
      ['/api/signup', { raw: '{"name":', headers: { 'content-type': 'application/json' } }, 400, 'malformed_json'],
      ['/api/contact', { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 400, 'json_required'],
      ['/api/nothing-here', {}, 404, 'unknown_path'],
      ['/api/sessions/no-such-session', { method: 'DELETE' }, 404, 'not_found'],
      ['/api/signup', { method: 'GET' }, 405, 'method_not_allowed'],
      ['/api/contact', { json: { name: 'x', email: 'a@example.com', message: 'x'.repeat(70_000) } }, 413, 'body_too_large'],
    ];
    for (const [path, options, status, code] of cases) {
      const withSession = path.startsWith('/api/sessions/') ? { session } : {};
      const res = await request(server.url, path, { ip: freshIp(), ...withSession, ...options });
      expect([path, res.status, (res.body as { code?: unknown }).code]).toEqual([path, status, code]);
    }
  });

  it('a state change with only a foreign Referer (no Origin, no Sec-Fetch-Site) is refused like a foreign Origin; the own origin’s passes', async () => {
    const logout = (referer: string) => request(server.url, '/api/logout', { method: 'POST', session, headers: { referer } });
    for (const referer of ['https://evil.example/page', 'http://127.0.0.1:1/', 'not a url']) {
      const res = await logout(referer);
      expect([referer, res.status, (res.body as { code?: unknown }).code]).toEqual([referer, 403, 'cross_site']);
    }
    expect((await request(server.url, '/api/me', { session })).status).toBe(200);
    const own = await logout(`${server.url}/some/page?x=1`);
    expect(own.status).toBe(200);
    expect((await request(server.url, '/api/me', { session })).status).toBe(401);
  });

  it('the OpenAPI document shows `code` on ErrorResponse, optional beside the spec’s required `ok` and `error`', async () => {
    const doc = (await request(server.url, '/openapi.json')).body as { components: { schemas: { ErrorResponse: { required: string[]; properties: Record<string, { type?: string; description?: string }> } } } };
    const schema = doc.components.schemas.ErrorResponse;
    expect(schema.properties.code).toMatchObject({ type: 'string', description: expect.stringContaining('`cross_site`') });
    expect(schema.required.sort()).toEqual(['error', 'ok']);
  });
});

describe('the guard’s 403 for an unverified address', () => {
  it('has its own code, apart from the other 403s', async () => {
    const service = await createService({ store: createMemoryStore(), hasher: testHasher, mailer: { send: async () => {} } });
    try {
      const { request: call } = await import('@sl-accounts/service/http/testing');
      const signup = await call(service.api, 'POST /api/signup', { json: { name: 'Unverified', email: 'unverified@example.com', password: 'long enough' } });
      const { answer } = await service.api.authorize({ headers: { cookie: `sl_session=${signup.cookies.sl_session}` } }, { verified: true });
      expect(answer?.status).toBe(403);
      expect(JSON.parse(String(answer?.body))).toMatchObject({ ok: false, code: 'email_not_verified' });
    } finally {
      await service.close();
    }
  });
});
