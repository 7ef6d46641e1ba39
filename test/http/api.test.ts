/**
 * The spec's endpoints over real HTTP: statuses, bodies, headers and cookie attributes, under both
 * hosts and on every store. What does not depend on the store is in contract.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { freshIp, request, sessionFrom, type RequestOptions } from '../support/client.ts';
import { MATRIX, describeEachServer, startTestServer } from '../support/server.ts';

const COOKIE = /^sl_session=([A-Za-z0-9_-]{43}); Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Lax$/;
const CLEARED = /^sl_session=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=\/; HttpOnly; Secure; SameSite=Lax$/;

describeEachServer('API', MATRIX, ({ host, store }) => {
  let server: RunningServer;
  const api = (path: string, options: RequestOptions = {}) => request(server.url, path, { ip: freshIp(), ...options });
  let n = 0;
  const uniqueEmail = () => `user${++n}.${Date.now()}@example.com`;
  const signup = (fields: Partial<Record<'name' | 'email' | 'password', unknown>> = {}) =>
    api('/api/signup', { json: { name: 'Ada Lovelace', email: uniqueEmail(), password: 'analytical engine', ...fields } });

  beforeAll(async () => {
    server = await startTestServer({ host, store, env: { TRUST_PROXY: '1' } });
  });
  afterAll(() => server?.close());

  describe('GET /api/health', () => {
    it('answers 200 with ok, status, service and time', async () => {
      const res = await api('/api/health');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = res.body as Record<string, unknown>;
      expect(body).toMatchObject({ ok: true, status: 'ok', service: 'sl-accounts' });
      expect(new Date(body.time as string).toISOString()).toBe(body.time);
    });
  });

  describe('POST /api/signup', () => {
    it('answers 201 UserResponse and sets sl_session with the spec attributes', async () => {
      const email = uniqueEmail();
      const res = await api('/api/signup', { json: { name: '  Ada ', email: `  ${email.toUpperCase()} `, password: 'analytical engine' } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ ok: true, user: { id: expect.any(Number), name: 'Ada', email, emailVerified: false } });
      expect(JSON.stringify(res.body)).not.toContain('analytical');
      // The session cookie, then the device cookie that keeps others' failed logins from locking this browser out.
      expect(res.setCookies).toHaveLength(2);
      expect(res.setCookies[0]).toMatch(COOKIE);
      expect(res.setCookies[1]).toMatch(/^sl_device=[\w.-]+; Max-Age=31536000; Path=\/api\/login; HttpOnly; Secure; SameSite=Lax$/);
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('answers 409 ErrorResponse for a registered e-mail, in any case', async () => {
      const email = uniqueEmail();
      expect((await signup({ email })).status).toBe(201);
      const res = await signup({ email: email.toUpperCase() });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
      expect(res.setCookies).toEqual([]);
    });

    it.each([
      ['name', 1, 400], ['name', 2, 201], ['name', 120, 201], ['name', 121, 400],
      ['password', 7, 400], ['password', 8, 201], ['password', 200, 201], ['password', 201, 400],
    ] as const)('%s of %i characters: %i', async (field, length, status) => {
      const res = await signup({ [field]: 'x'.repeat(length) });
      expect(res.status).toBe(status);
      if (status === 400) expect(res.body).toMatchObject({ ok: false, error: expect.stringContaining(field), code: 'validation', issues: [{ path: field, message: expect.any(String) }] });
    });

    it.each([[200, 201], [201, 400]] as const)('e-mail of %i characters: %i', async (length, status) => {
      const domain = '@example.com';
      const res = await signup({ email: `${'a'.repeat(length - domain.length - String(n).length)}${++n}${domain}` });
      expect(res.status).toBe(status);
    });

    it('counts the name after trimming', async () => {
      expect((await signup({ name: '   A   ' })).status).toBe(400);
    });

    it.each([
      ['a missing field', { name: 'Ada', password: 'analytical engine' }],
      ['an invalid e-mail', { name: 'Ada', email: 'not-an-email', password: 'analytical engine' }],
      ['a number for a string', { name: 42, email: 'ada@example.com', password: 'analytical engine' }],
      ['null', null],
      ['an array', [1, 2]],
    ])('answers 400 ErrorResponse for %s', async (_, json) => {
      const res = await api('/api/signup', { json });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ ok: false, error: expect.any(String), code: expect.any(String) });
    });
  });

  describe('POST /api/login', () => {
    it('answers 200 UserResponse with a fresh cookie for any case of the e-mail', async () => {
      const email = uniqueEmail();
      const created = await signup({ email });
      const res = await api('/api/login', { json: { email: email.toUpperCase(), password: 'analytical engine' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(created.body);
      expect(res.setCookies[0]).toMatch(COOKIE);
      expect(sessionFrom(res)).not.toBe(sessionFrom(created));
    });

    it('answers the same 401 for a wrong password and an unknown e-mail', async () => {
      const email = uniqueEmail();
      await signup({ email });
      const wrong = await api('/api/login', { json: { email, password: 'analytical enginE' } });
      const unknown = await api('/api/login', { json: { email: uniqueEmail(), password: 'analytical engine' } });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
      expect(unknown.body).toEqual(wrong.body);
      expect(wrong.setCookies).toEqual([]);
    });

    it('ends the session the client came with', async () => {
      const email = uniqueEmail();
      const old = sessionFrom(await signup({ email }))!;
      const fresh = sessionFrom(await api('/api/login', { json: { email, password: 'analytical engine' }, session: old }))!;
      expect((await api('/api/me', { session: old })).status).toBe(401);
      expect((await api('/api/me', { session: fresh })).status).toBe(200);
    });

    it('leaves a session the login was not sent with alive, until it is logged out (as auth.md says)', async () => {
      const email = uniqueEmail();
      const old = sessionFrom(await signup({ email }))!;
      const fresh = sessionFrom(await api('/api/login', { json: { email, password: 'analytical engine' } }))!;
      expect((await api('/api/me', { session: old })).status).toBe(200);
      expect((await api('/api/logout', { method: 'POST', session: old })).status).toBe(200);
      expect((await api('/api/me', { session: old })).status).toBe(401);
      expect((await api('/api/me', { session: fresh })).status).toBe(200);
    });

    it.each([
      ['no password', { email: 'ada@example.com' }],
      ['a bad e-mail', { email: 'ada', password: 'x' }],
      ['a non-string password', { email: 'ada@example.com', password: 12345678 }],
    ])('answers 400 for %s', async (_, json) => {
      const res = await api('/api/login', { json });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ ok: false, error: expect.any(String), code: expect.any(String) });
    });
  });

  describe('GET /api/me and POST /api/logout', () => {
    it('me answers the session user; logout answers Ok, clears the cookie, and ends the session', async () => {
      const created = await signup();
      const token = sessionFrom(created)!;
      const me = await api('/api/me', { session: token });
      expect(me.status).toBe(200);
      expect(me.body).toEqual(created.body);

      const out = await api('/api/logout', { method: 'POST', session: token });
      expect(out.status).toBe(200);
      expect(out.body).toEqual({ ok: true });
      expect(out.setCookies).toHaveLength(1);
      expect(out.setCookies[0]).toMatch(CLEARED);

      const after = await api('/api/me', { session: token });
      expect(after.status).toBe(401);
      expect(after.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
    });

    it.each([
      ['no cookie', undefined],
      ['an unknown token', 'A'.repeat(43)],
      ['a malformed token', 'not a token; really'],
    ])('me and logout answer 401 and clear the cookie for %s', async (_, session) => {
      for (const [path, method] of [['/api/me', 'GET'], ['/api/logout', 'POST']] as const) {
        const res = await api(path, { method, ...(session === undefined ? {} : { session }) });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
        expect(res.setCookies[0]).toMatch(CLEARED);
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
    });
  });

  describe('POST /api/contact', () => {
    const contact = (fields: Record<string, unknown> = {}) =>
      api('/api/contact', { json: { name: 'Grace', email: 'grace@example.com', message: 'Hello there, friend.', ...fields } });

    it('answers 200 Ok', async () => {
      const res = await contact();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
      expect(res.setCookies).toEqual([]);
    });

    it.each([
      ['name', 0, 200], ['name', 120, 200], ['name', 121, 400],
      ['message', 9, 400], ['message', 10, 200], ['message', 5000, 200], ['message', 5001, 400],
    ] as const)('%s of %i characters: %i', async (field, length, status) => {
      const res = await contact({ [field]: 'x'.repeat(length) });
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ ok: status === 200 });
    });

    it.each([[200, 200], [201, 400]] as const)('e-mail of %i characters: %i', async (length, status) => {
      expect((await contact({ email: `${'b'.repeat(length - 12)}@example.com` })).status).toBe(status);
    });

    it('answers 400 for a missing field or a bad e-mail', async () => {
      expect((await api('/api/contact', { json: { email: 'g@example.com', message: 'Hello there, friend.' } })).status).toBe(400);
      expect((await contact({ email: 'grace at example' })).status).toBe(400);
    });
  });
});
