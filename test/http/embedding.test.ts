/**
 * The service embedded in each example app (examples/<host>), at the root and under a base path, on
 * the memory store: the app's own routes beside it, the session guard, bodies the app's own parser
 * read first, and every link and document under the base path.
 */
// @module-tag socket
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DOMAIN_ERRORS,
  EmailTaken,
  InvalidCode,
  InvalidCredentials,
  LoginChallengeInvalid,
  NotFound,
  RateLimited,
  SecondFactorRequired,
  SecondFactorUnavailable,
  PasskeysUnavailable,
  UnknownProvider,
  ProviderUnavailable,
  SignInRefused,
  LastSignInMethod,
  AccountLocked,
  AccountChanged,
  SignInRequired,
  StoreUnavailable,
  TwoFactorState,
  Unauthenticated,
  ValidationError,
  WrongCode,
  WrongPassword,
  type Accounts,
} from '@sl-accounts/service/core';
import { STATUS_BY_CODE, createHttpApi, normaliseBasePath } from '@sl-accounts/service/http';
import { loadConfig, type RunningServer } from '@sl-accounts/server';
import { freshIp, request, sessionFrom, type RequestOptions } from '../support/client.ts';
import { MOUNTS, startTestServer } from '../support/server.ts';

/**
 * Apps whose own body parser reads JSON before the service does (express.json(), mounted before it).
 * The Koa app mounts the service before koa-bodyparser, and the Fastify plugin leaves its bodies to
 * the contract: there, as in node:http and Hono, the service reads its own bodies.
 */
const PARSES_FIRST = new Set(['express']);

describe.each(MOUNTS.filter((row) => row.host !== 'koa'))('embedded in the $host example at "$basePath"', ({ host, basePath }) => {
  let server: RunningServer;
  const api = (path: string, options: RequestOptions = {}) => request(server.url, basePath + path, { ip: freshIp(), basePath, ...options });
  const own = async (path: string, session?: string) => {
    const res = await fetch(`${server.url}${path}`, { headers: session ? { cookie: `sl_session=${session}` } : {} });
    return { status: res.status, type: res.headers.get('content-type'), setCookie: res.headers.getSetCookie(), body: (await res.json()) as unknown };
  };

  beforeAll(async () => {
    server = await startTestServer({ host, env: { TRUST_PROXY: '1', BASE_PATH: basePath } });
  });
  afterAll(() => server?.close());

  it('serves the app’s own GET /hello beside the service', async () => {
    expect(await own('/hello')).toMatchObject({ status: 200, body: { ok: true, hello: 'world' } });
  });

  it('guards the app’s own GET /hello/me: the spec’s 401 without a session, the user with one, 401 again after logout', async () => {
    const anonymous = await own('/hello/me');
    expect(anonymous).toMatchObject({ status: 401, body: { ok: false, error: expect.any(String), code: expect.any(String) } });
    expect(anonymous.type).toMatch(/^application\/json/);
    expect(await own('/hello/me', 'not-a-session')).toMatchObject({ status: 401, body: { ok: false } });

    const email = `guard.${host}.${Date.now()}@example.com`;
    const signup = await api('/api/signup', { json: { name: 'Guarded', email, password: 'long enough' } });
    expect(signup.status).toBe(201);
    // Path=/ whatever the base path: the cookie must reach the app's own guarded routes too.
    expect(signup.setCookies[0]).toMatch(/; Path=\/;/);
    const token = sessionFrom(signup)!;
    expect(await own('/hello/me', token)).toMatchObject({ status: 200, body: { ok: true, hello: email } });

    expect((await api('/api/logout', { method: 'POST', session: token })).status).toBe(200);
    expect((await own('/hello/me', token)).status).toBe(401);
  });

  it(
    PARSES_FIRST.has(host)
      ? 'answers malformed JSON the app’s parser refused with the spec’s 400 ErrorResponse, and spends no limit on it'
      : 'answers malformed JSON with the spec’s 400 ErrorResponse, counted as the spec counts every JSON request',
    async () => {
      const ip = freshIp();
      const limit = 10; // signups per client and hour
      for (let i = 0; i < limit + 2; i++) {
        const res = await api('/api/signup', { ip, raw: '{"name": "Ada",', headers: { 'content-type': 'application/json' } });
        if (PARSES_FIRST.has(host) || i < limit) {
          expect(res.status, `attempt ${i + 1}`).toBe(400);
          expect(res.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
          expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        } else {
          expect(res.status, `attempt ${i + 1}`).toBe(429);
        }
      }
      const valid = await api('/api/signup', { ip, json: { name: 'Ada', email: `ada.${host}.${Date.now()}@example.com`, password: 'long enough' } });
      if (PARSES_FIRST.has(host)) {
        expect(valid.status).toBe(201);
        expect(valid.headers.get('ratelimit')).toMatch(/^"signup";r=9;/);
      } else {
        expect(valid.status).toBe(429);
      }
    },
  );

  it('answers a JSON array nested 5,000 deep as the contract’s own parser does, 400 on the API and on /mcp, whoever parsed it first', async () => {
    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const login = await api('/api/login', { raw: deep, headers: { 'content-type': 'application/json' } });
    expect(login.status).toBe(400);
    expect(login.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String), issues: expect.any(Array) });
    const mcp = await fetch(`${server.url}${basePath}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: deep });
    expect(mcp.status).toBe(400);
    expect(((await mcp.json()) as { error?: unknown }).error).toBeDefined();
  });

  it('points every document into the base path', async () => {
    const origin = server.url;
    const base = origin + basePath;
    const openapi = (await api('/openapi.json')).body as { servers: { url: string }[] };
    expect(openapi.servers[0]!.url).toBe(base);
    const index = (await api('/', { headers: { accept: 'application/json' } })).body as { links: Record<string, string> };
    for (const link of Object.values(index.links)) expect(link.startsWith(`${base}/`), link).toBe(true);
    const auth = (await api('/auth.md')).body as string;
    expect(auth).toContain(`${base}/api/signup`);
    const skills = (await api('/.well-known/agent-skills/index.json')).body as { skills: { url: string }[] };
    for (const skill of skills.skills) expect(skill.url.startsWith(`${base}/.well-known/agent-skills/`)).toBe(true);
    const card = (await api('/mcp/server-card')).body as { remotes: { url: string }[] };
    expect(card.remotes[0]!.url).toBe(`${base}/mcp`);

    const redirect = await fetch(`${base}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe(`${basePath}/docs/api`);

    // The docs page loads its scripts, and the init script its OpenAPI document, from inside the base path.
    const page = await (await fetch(`${base}/docs/api`)).text();
    const scripts = [...page.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(2);
    expect(page).toContain(`data-openapi="${basePath}/openapi.json"`);
    for (const src of scripts) {
      expect(src.startsWith(`${basePath}/docs/api/`), src).toBe(true);
      const script = await fetch(`${origin}${src}`, { headers: { 'accept-encoding': 'identity' } });
      expect(script.status, src).toBe(200);
      await script.body?.cancel();
    }
  });

  it.skipIf(!basePath)('serves the /.well-known/ documents at the origin’s root too, pointing into the base path (RFC 8615)', async () => {
    const catalog = await fetch(`${server.url}/.well-known/api-catalog`);
    expect(catalog.status).toBe(200);
    const linkset = (await catalog.json()) as { linkset: { anchor: string }[] };
    expect(linkset.linkset[0]!.anchor).toBe(`${server.url}${basePath}/api`);
    const card = (await (await fetch(`${server.url}/.well-known/mcp/server-card.json`)).json()) as { remotes: { url: string }[] };
    expect(card.remotes[0]!.url).toBe(`${server.url}${basePath}/mcp`);
    // Inside the base path, what the service does not serve is its 404, not the app's.
    const missing = await api('/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ ok: false, error: 'Not found', code: 'unknown_path' });
  });
});

describe('embedding pieces', () => {
  it('the contract answers each domain error with its status; the core’s errors name none', () => {
    const samples = [
      new ValidationError([{ path: 'email', message: 'bad' }]),
      new EmailTaken(),
      new InvalidCredentials(),
      new Unauthenticated(),
      new WrongPassword(),
      new NotFound('Session'),
      new RateLimited({ policy: 'login', limit: 1, windowSeconds: 1, remaining: 0, resetSeconds: 1 }),
      new StoreUnavailable(),
      // Issue 34's second factor.
      new LoginChallengeInvalid(),
      new InvalidCode(),
      new WrongCode(),
      new SecondFactorRequired(),
      new TwoFactorState('TOTP is on already'),
      new SecondFactorUnavailable(),
      new PasskeysUnavailable(),
      // Issue 42's identity providers and issue 43's lock.
      new UnknownProvider(),
      new ProviderUnavailable(),
      new SignInRefused('identity_invalid'),
      new LastSignInMethod(),
      new AccountLocked(),
      // A change that lost its race with another, its session standing (2026-12-07).
      new AccountChanged(),
      // The first verification of an account with ways in besides its password, without its session (2026-12-08).
      new SignInRequired(),
    ];
    expect(samples.map((e) => e.constructor)).toEqual([...DOMAIN_ERRORS]);
    const api = createHttpApi({ accounts: {} as Accounts });
    for (const error of samples) {
      expect(api.answerError(error, { headers: {} }).status, error.name).toBe(STATUS_BY_CODE[error.code]);
      expect(error).not.toHaveProperty('status');
    }
  });

  it('api.session hands a host’s error handler a 503 it may show when the store does not answer', async () => {
    const outage = new StoreUnavailable();
    const api = createHttpApi({ accounts: { me: () => Promise.reject(outage) } as Partial<Accounts> as Accounts });
    const error = (await api.session({ headers: { cookie: 'sl_session=abc' } }).catch((e: unknown) => e)) as { status?: number; expose?: boolean; cause?: unknown; message?: string };
    expect(error).toMatchObject({ status: 503, expose: true, message: outage.message });
    expect(error.cause).toBe(outage);
    expect(await createHttpApi({ accounts: { me: () => Promise.reject(new Unauthenticated()) } as Partial<Accounts> as Accounts }).session({ headers: { cookie: 'sl_session=abc' } })).toBeNull();
  });

  it('BASE_PATH is normalised, and refused with its name when it is not a path', () => {
    expect(['', '/', 'accounts', '/accounts/', '/a/b'].map(normaliseBasePath)).toEqual(['', '', '/accounts', '/accounts', '/a/b']);
    expect(loadConfig({ BASE_PATH: '/accounts/' }).basePath).toBe('/accounts');
    for (const bad of ['/a b', '/a/../b', '/a?x', '/a#x']) expect(() => loadConfig({ BASE_PATH: bad }), bad).toThrow(/BASE_PATH/);
  });
});
