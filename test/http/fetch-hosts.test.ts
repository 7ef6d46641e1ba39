/**
 * The web-standard hosts' adapters, in-process (no socket): the Next.js route handlers
 * (`toNextJsHandler`) and the guard for Bun, Deno and Next.js (`requireSession` of
 * `@sl-accounts/service/fetch`, shipped as `@sl-accounts/service/fetch`), and `accounts(service)` of
 * `@sl-accounts/service/hono` on a runtime without node's request: Hono's own `Request` through
 * `api.fetch`, the client's address from Bun's or Deno's bindings. test:pack runs them for real.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { requireSession, toNextJsHandler } from '@sl-accounts/service/fetch';
import { accounts } from '@sl-accounts/service/hono';
import { testHasher } from '@sl-accounts/service/http/testing';
import { createService } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { json, useFetchService } from '../support/fetch-service.ts';
import { poll } from '../support/poll.ts';

const start = useFetchService();

const sessionOf = (response: Response) => /^sl_session=([^;]+)/.exec(response.headers.getSetCookie().find((c) => c.startsWith('sl_session=')) ?? '')?.[1];

describe('toNextJsHandler', () => {
  it('serves every method under the route’s folder (mountPath), the client by the last X-Forwarded-For hop', async () => {
    const { POST, GET, HEAD, DELETE } = toNextJsHandler(await start(), { mountPath: '/accounts' });
    const signup = await POST(json('POST', 'http://localhost/accounts/api/signup', { name: 'Ada', email: 'ada@example.com', password: 'long enough' }, { 'x-forwarded-for': '198.51.100.1, 192.0.2.7' }));
    expect(signup.status).toBe(201);
    // The device cookie's path says where the service is.
    expect(signup.headers.getSetCookie().find((c) => c.startsWith('sl_device='))).toMatch(/Path=\/accounts\/api\/login/);
    const cookie = `sl_session=${sessionOf(signup)}`;
    const me = await GET(new Request('http://localhost/accounts/api/me', { headers: { cookie } }));
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe('ada@example.com');
    expect((await HEAD(new Request('http://localhost/accounts/api/health', { method: 'HEAD' }))).body).toBeNull();
    // DELETE reaches the contract too: without the body it requires, its JSON 400.
    const deleted = await DELETE(new Request('http://localhost/accounts/api/me', { method: 'DELETE' }));
    expect(deleted.status).toBe(400);
    expect(await deleted.json()).toMatchObject({ ok: false });
    // The limits count by the hop the proxy appended (198.51.100.1 is the client's own claim): a
    // second client at another last hop starts afresh, the same last hop does not.
    const login = (forwarded: string) => POST(json('POST', 'http://localhost/accounts/api/login', { email: 'nobody@example.com', password: 'wrong one' }, { 'x-forwarded-for': forwarded }));
    expect((await login('203.0.113.1, 192.0.2.8')).headers.get('ratelimit')).toMatch(/"login";r=19;/);
    expect((await login('203.0.113.2, 192.0.2.8')).headers.get('ratelimit')).toMatch(/"login";r=18;/);
    expect((await login('192.0.2.9')).headers.get('ratelimit')).toMatch(/"login";r=19;/);
  });

  it('under the service’s basePath needs no option; clientAddress reads the address elsewhere', async () => {
    const seen: string[] = [];
    const { GET } = toNextJsHandler(await start({ basePath: '/accounts' }), { clientAddress: (request) => (seen.push(request.url), '192.0.2.1') });
    const health = await GET(new Request('http://localhost/accounts/api/health'));
    expect(health.status).toBe(200);
    expect(seen).toEqual(['http://localhost/accounts/api/health']);
  });
});

describe('requireSession (web-standard)', () => {
  it('gives the user for a Request or Headers with the cookie, else the contract’s answer as a Response', async () => {
    const started = await start();
    const signup = await started.fetch(json('POST', 'http://localhost/api/signup', { name: 'Ada', email: 'ada@example.com', password: 'long enough' }), { clientAddress: '192.0.2.7' });
    const headers = new Headers({ cookie: `theme=dark; sl_session=${sessionOf(signup)}` });
    const user = await requireSession(started, new Request('http://localhost/me', { headers }));
    expect(user).toMatchObject({ name: 'Ada', email: 'ada@example.com', emailVerified: false });
    expect(await requireSession(started, headers)).toEqual(user);

    const none = await requireSession(started, new Request('http://localhost/me'));
    expect(none).toBeInstanceOf(Response);
    expect((none as Response).status).toBe(401);
    expect(await (none as Response).json()).toMatchObject({ ok: false });
    const unverified = await requireSession(started, headers, { verified: true });
    expect((unverified as Response).status).toBe(403);
    expect(await (unverified as Response).json()).toMatchObject({ ok: false, error: 'The e-mail address of this account is not verified' });
  });
});

describe('accounts(service) of http-hono without node’s request', () => {
  it('answers through api.fetch under app.route’s prefix, the client from Bun’s requestIP or Deno’s remoteAddr', async () => {
    const app = new Hono().route('/accounts', accounts(await start()));
    const asked: string[] = [];
    const bun = { requestIP: (request: Request) => (asked.push(new URL(request.url).pathname), { address: '192.0.2.20' }) };
    const login = (env: object) => app.fetch(json('POST', 'http://localhost/accounts/api/login', { email: 'nobody@example.com', password: 'wrong one' }), env);
    expect((await login(bun)).headers.get('ratelimit')).toMatch(/"login";r=19;/);
    expect((await login(bun)).headers.get('ratelimit')).toMatch(/"login";r=18;/);
    expect(asked).toEqual(['/accounts/api/login', '/accounts/api/login']);
    const deno = { remoteAddr: { hostname: '192.0.2.30', port: 5000, transport: 'tcp' } };
    expect((await login(deno)).headers.get('ratelimit')).toMatch(/"login";r=19;/);
    expect((await login(deno)).headers.get('ratelimit')).toMatch(/"login";r=18;/);
    // The documents' links carry the prefix.
    const catalog = await app.fetch(new Request('http://localhost/accounts/openapi.json'), deno);
    expect(catalog.status).toBe(200);
    expect(JSON.stringify(await catalog.json())).toContain('http://localhost/accounts');
  });
});

describe('mailed links on the web-standard hosts', () => {
  const ORIGIN = 'https://accounts.example.org';
  type Fetch = (request: Request) => Promise<Response>;
  const hosts: Record<string, (service: Awaited<ReturnType<typeof createService>>) => Fetch> = {
    'toNextJsHandler with mountPath': (service) => {
      const { GET, POST } = toNextJsHandler(service, { mountPath: '/accounts' });
      return (request) => (request.method === 'GET' ? GET(request) : POST(request));
    },
    'service.fetch with mountPath (Bun, Deno)': (service) => (request) => service.fetch(request, { clientAddress: '192.0.2.40', mountPath: '/accounts' }),
    'Hono’s app.route off Node': (service) => {
      const app = new Hono().route('/accounts', accounts(service));
      return async (request) => app.fetch(request, { remoteAddr: { hostname: '192.0.2.41', port: 5000, transport: 'tcp' } });
    },
  };

  it.each(Object.keys(hosts))('%s: the links point into the mount on publicUrl, and each page finishes its action there', async (host) => {
    const mails: { to: string; subject: string; text: string }[] = [];
    const service = await createService({ store: createMemoryStore(), hasher: testHasher, publicUrl: ORIGIN, mailer: { send: async (mail) => void mails.push(mail) }, mail: { pollMs: 10 } });
    try {
      const serve = hosts[host]!(service);
      const post = (url: string, body: unknown, session?: string) => serve(json('POST', url, body, { origin: ORIGIN, ...(session ? { cookie: `sl_session=${session}` } : {}) }));
      const follow = async (to: string, subject: string, page: string) => {
        const found = await poll(async () => mails.filter((m) => m.to === to && m.subject.includes(subject)), (list) => list.length > 0, 10_000);
        const link = /https?:\/\/\S+/.exec(found[0]!.text)![0];
        expect(link).toMatch(new RegExp(`^${ORIGIN}/accounts${page}\\?token=[\\w-]+$`));
        const html = await serve(new Request(link));
        expect(html.status).toBe(200);
        expect(await html.text()).toContain('data-api="/accounts/api"');
        return new URL(link).searchParams.get('token')!;
      };
      const signup = await post(`${ORIGIN}/accounts/api/signup`, { name: 'Web', email: 'web@example.com', password: 'first password' });
      expect(signup.status).toBe(201);
      // Confirmed in the browser signed in to the account (the page posts with its cookie).
      const verify = await post(`${ORIGIN}/accounts/api/email-verification/confirm`, { token: await follow('web@example.com', 'Confirm', '/verify-email') }, sessionOf(signup));
      expect(await verify.json()).toMatchObject({ ok: true, user: { emailVerified: true } });
      expect((await post(`${ORIGIN}/accounts/api/password-reset`, { email: 'web@example.com' })).status).toBe(202);
      const token = await follow('web@example.com', 'Reset your', '/reset-password');
      expect((await post(`${ORIGIN}/accounts/api/password-reset/confirm`, { token, newPassword: 'second password' })).status).toBe(200);
      expect((await post(`${ORIGIN}/accounts/api/login`, { email: 'web@example.com', password: 'second password' })).status).toBe(200);
    } finally {
      await service.close();
    }
  });
});
