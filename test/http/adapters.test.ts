/**
 * Each host adapter package mounted the way its framework mounts anything, under a prefix of the
 * framework's own (`app.use('/v1', …)`, a `@koa/router` prefix, a Fastify plugin's `prefix`,
 * `app.route`, a Connect-style mount) rather than the service's `basePath`: the service answers
 * there with every link pointing into the prefix, `/mcp` streams through it, the guard answers in
 * the framework's idiom, and what each framework adds (body parsers, allowedMethods, nested routers,
 * encapsulation, app.mount, Express 4) holds. The examples (examples/<host>) run the whole suites
 * with the service's own `basePath`; this file is about the framework's prefix.
 */
// @module-tag socket
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Koa from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import { bodyParser as koaBodyParser } from '@koa/bodyparser';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { Pbkdf2PasswordHasher, StoreUnavailable, type Accounts } from '@sl-accounts/service/core';
import { createHttpApi, type HttpService } from '@sl-accounts/service/http';
import * as onExpress from '@sl-accounts/http-express';
import * as onFastify from '@sl-accounts/http-fastify';
import * as onHono from '@sl-accounts/service/hono';
import * as onKoa from '@sl-accounts/http-koa';
import * as onNode from '@sl-accounts/service/http-node';
import { createService, type Service } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { request, sessionFrom } from '../support/client.ts';
import { CookieJar } from '../support/cookie-jar.ts';
import { poll } from '../support/poll.ts';

/** An app of one framework: the service under `/v1`, and the app's own `/me` and `/verified` behind the guard. */
type AppFactory = (service: HttpService) => Promise<(req: IncomingMessage, res: ServerResponse) => void>;

const own = (user: { email: string } | undefined) => ({ ok: true, hello: user?.email });

const APPS: Record<string, AppFactory> = {
  'express 5': async (service) => expressApp(express5, service),
  'express 4': async (service) => express4App(service),
  koa: async (service) => {
    const app = new Koa();
    const router = new Router();
    router.use('/v1', onKoa.accounts(service));
    router.get('/me', onKoa.requireSession(service), (ctx) => void (ctx.body = own(ctx.state.user)));
    router.get('/verified', onKoa.requireSession(service, { verified: true }), (ctx) => void (ctx.body = own(ctx.state.user)));
    app.use(router.routes()).use(router.allowedMethods());
    return app.callback();
  },
  fastify: async (service) => {
    const app = Fastify();
    await app.register(onFastify.accounts(service), { prefix: '/v1' });
    app.get('/me', { preHandler: onFastify.requireSession(service) }, async (request) => own(request.user));
    app.get('/verified', { preHandler: onFastify.requireSession(service, { verified: true }) }, async (request) => own(request.user));
    await app.ready();
    return (req, res) => app.routing(req, res);
  },
  hono: async (service) => {
    const app = new Hono();
    app.route('/v1', onHono.accounts(service));
    app.get('/me', onHono.requireSession(service), (c) => c.json(own(c.get('user'))));
    app.get('/verified', onHono.requireSession(service, { verified: true }), (c) => c.json(own(c.get('user'))));
    return getRequestListener(app.fetch);
  },
  // A Connect-style mount (Connect strips the prefix from `url` and keeps `originalUrl`, with no `baseUrl`).
  'node (Connect-style)': async (service) => {
    const serve = onNode.accounts(service);
    const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const guarded = (options?: { verified: true }) => onNode.requireSession(service, options);
    return (req: onNode.ConnectRequest, res) => {
      const notFound = () => res.writeHead(404, { 'content-type': 'text/plain' }).end('the app’s own 404');
      if (req.url === '/me') return guarded()(req, res, () => json(res, own(req.user)));
      if (req.url === '/verified') return guarded({ verified: true })(req, res, () => json(res, own(req.user)));
      if (req.url === '/v1' || req.url?.startsWith('/v1/') || req.url?.startsWith('/v1?')) {
        req.originalUrl = req.url;
        req.url = req.url.slice('/v1'.length) || '/';
        return serve(req, res, notFound);
      }
      notFound();
    };
  },
};

function expressApp(express: typeof express5, service: HttpService) {
  const app = express();
  app.use(express.json());
  app.use('/v1', onExpress.accounts(service));
  app.get('/me', onExpress.requireSession(service), (_req, res) => void res.json(own(res.locals.user as { email: string })));
  app.get('/verified', onExpress.requireSession(service, { verified: true }), (_req, res) => void res.json(own(res.locals.user as { email: string })));
  return app;
}

/** The same app on Express 4, written out so that Express 4's own types check the adapter too. */
function express4App(service: HttpService) {
  const app = express4();
  app.use(express4.json());
  app.use('/v1', onExpress.accounts(service));
  app.get('/me', onExpress.requireSession(service), (_req, res) => void res.json(own(res.locals.user as { email: string })));
  app.get('/verified', onExpress.requireSession(service, { verified: true }), (_req, res) => void res.json(own(res.locals.user as { email: string })));
  return app;
}

async function listen(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const hasher = new Pbkdf2PasswordHasher({ iterations: 1_000 });
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'adapters', version: '1' } } });

describe.each(Object.keys(APPS))('the %s adapter under a prefix of the framework’s own', (name) => {
  let service: Service;
  let server: { url: string; close(): Promise<void> };
  /** The mails the service sent, as its mailer was handed them. */
  const sent: { to: string; subject: string; text: string }[] = [];
  beforeAll(async () => {
    service = await createService({
      store: createMemoryStore(),
      hasher,
      mailer: { send: async (mail) => void sent.push(mail) },
      mail: { pollMs: 20 },
      // Three failed logins lock an account (for everyone without its device cookie), well within the per-IP limit.
      accounts: { accountLoginLimit: { limit: 3, windowMs: 15 * 60_000 } },
    });
    server = await listen(await APPS[name]!(service));
  });
  afterAll(async () => {
    await server?.close();
    await service?.close();
  });
  const api = (path: string, options: Parameters<typeof request>[2] = {}) => request(server.url, `/v1${path}`, { basePath: '/v1', ...options });

  it('answers under the prefix, and every document points into it', async () => {
    expect((await api('/api/health')).body).toMatchObject({ ok: true, status: 'ok' });
    const openapi = (await api('/openapi.json')).body as { servers: { url: string }[] };
    expect(openapi.servers[0]!.url).toBe(`${server.url}/v1`);
    const card = (await api('/.well-known/mcp/server-card.json')).body as { remotes: { url: string }[] };
    expect(card.remotes[0]!.url).toBe(`${server.url}/v1/mcp`);
    expect((await api('/auth.md')).body).toContain(`${server.url}/v1/api/signup`);
    // The index at the prefix itself (Hono's routes are strict: `/v1`, not `/v1/`).
    const index = (await request(server.url, '/v1', { headers: { accept: 'application/json' } })).body as { links: Record<string, string> };
    for (const link of Object.values(index.links)) expect(link.startsWith(`${server.url}/v1/`), link).toBe(true);
    const unknown = await api('/api/no-such-path');
    expect(unknown).toMatchObject({ status: 404, body: { ok: false, error: 'Not found', code: 'unknown_path' } });
    // The prefix is the framework's: the root is not the service's.
    expect((await fetch(`${server.url}/api/health`)).status).toBe(404);
  });

  it('streams /mcp under the prefix (an event stream through the framework)', async () => {
    const res = await fetch(`${server.url}/v1/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: INITIALIZE,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await res.text()).toMatch(/"serverInfo"/);
  });

  it('guards the app’s own routes in its idiom: the user, the spec’s 401, and 403 for { verified: true }', async () => {
    const email = `${name.replace(/\W/g, '').toLowerCase()}.${Date.now()}@example.com`;
    const signup = await api('/api/signup', { json: { name: 'Guarded', email, password: 'long enough' } });
    expect(signup.status).toBe(201);
    const cookie = `sl_session=${sessionFrom(signup)}`;
    const me = await fetch(`${server.url}/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ ok: true, hello: email });

    const anonymous = await fetch(`${server.url}/me`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/json/);
    expect(anonymous.headers.getSetCookie().some((c) => /^sl_session=;/.test(c))).toBe(true);
    expect(await anonymous.json()).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });

    // A new account's address is not verified: `verified` refuses it with 403, the session lives on.
    const unverified = await fetch(`${server.url}/verified`, { headers: { cookie } });
    expect(unverified.status).toBe(403);
    expect(await unverified.json()).toEqual({ ok: false, error: 'The e-mail address of this account is not verified', code: 'email_not_verified' });
    expect(unverified.headers.getSetCookie()).toEqual([]);
    expect((await fetch(`${server.url}/me`, { headers: { cookie } })).status).toBe(200);
    // Its link followed, the same session passes.
    const mails = await poll(async () => sent.filter((m) => m.to === email), (found) => found.length > 0, 10_000);
    const token = new URL(/https?:\/\/\S+/.exec(mails[0]!.text)![0]).searchParams.get('token')!;
    expect((await api('/api/email-verification/confirm', { json: { token }, session: sessionFrom(signup)! })).status).toBe(200);
    const verified = await fetch(`${server.url}/verified`, { headers: { cookie } });
    expect(verified.status).toBe(200);
    expect(await verified.json()).toEqual({ ok: true, hello: email });
    expect((await fetch(`${server.url}/verified`)).status).toBe(401);
  });

  it('mails links into the prefix, on the configured origin: verification, change of address and reset, each followed by a browser to its page and finished there', async () => {
    // A service of its own whose publicUrl is this server's origin, so the mailed links can be followed as they are.
    const mails: { to: string; subject: string; text: string }[] = [];
    let listener: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => void res.writeHead(503).end();
    const site = await listen((req, res) => listener(req, res));
    const linked = await createService({ store: createMemoryStore(), hasher, publicUrl: site.url, mailer: { send: async (mail) => void mails.push(mail) }, mail: { pollMs: 20 } });
    try {
      listener = await APPS[name]!(linked);
      const jar = new CookieJar();
      // As a browser on the service's pages: its cookies by path, and the page's own origin on every POST.
      const browser = async (url: string, json?: unknown) => {
        const { pathname, search } = new URL(url);
        const cookie = jar.header(pathname);
        const headers: Record<string, string> = { origin: site.url, ...(cookie ? { cookie } : {}) };
        const res = await request(site.url, pathname + search, { ...(json === undefined ? {} : { json }), headers, basePath: '/v1' });
        jar.store(res.setCookies, pathname);
        return res;
      };
      /** The link of the latest mail to `to` whose subject has `subject`, followed to its page: the page's API base (as its script reads it) and the token. */
      const follow = async (to: string, subject: string, page: string) => {
        const found = await poll(async () => mails.filter((m) => m.to === to && m.subject.includes(subject)), (list) => list.length > 0, 10_000);
        const link = /https?:\/\/\S+/.exec(found.at(-1)!.text)![0];
        expect(link).toMatch(new RegExp(`^${site.url}/v1${page}\\?token=[\\w-]+$`));
        const html = await browser(link);
        expect(html.status).toBe(200);
        expect(html.headers.get('content-type')).toMatch(/^text\/html/);
        const api = /data-api="([^"]+)"/.exec(html.body as string)![1]!;
        expect(api).toBe('/v1/api');
        return { api: `${site.url}${api}`, token: new URL(link).searchParams.get('token')! };
      };
      const email = `links.${name.replace(/\W/g, '').toLowerCase()}@example.com`;
      expect((await browser(`${site.url}/v1/api/signup`, { name: 'Linda', email, password: 'first password' })).status).toBe(201);

      const verify = await follow(email, 'Confirm your address', '/verify-email');
      expect((await browser(`${verify.api}/email-verification/confirm`, { token: verify.token })).body).toMatchObject({ ok: true, user: { email, emailVerified: true } });

      const moved = `moved.${email}`;
      expect((await browser(`${site.url}/v1/api/email`, { newEmail: moved, password: 'first password' })).status).toBe(202);
      const change = await follow(moved, '', '/verify-email');
      expect((await browser(`${change.api}/email-verification/confirm`, { token: change.token })).body).toMatchObject({ ok: true, user: { email: moved } });

      expect((await browser(`${site.url}/v1/api/password-reset`, { email: moved })).status).toBe(202);
      const reset = await follow(moved, 'Reset your', '/reset-password');
      expect((await browser(`${reset.api}/password-reset/confirm`, { token: reset.token, newPassword: 'second password' })).status).toBe(200);
      expect((await browser(`${site.url}/v1/api/login`, { email: moved, password: 'second password' })).status).toBe(200);
    } finally {
      await site.close();
      await linked.close();
    }
  });

  it('sets the device cookie for the login under the prefix: a browser sends it back there, and the owner signs in through a lockout, with no new-device mail', async () => {
    const email = `device.${name.replace(/\W/g, '').toLowerCase()}@example.com`;
    const password = 'owner’s password';
    const jar = new CookieJar();
    const browser = async (path: string, json: unknown) => {
      const cookie = jar.header(`/v1${path}`);
      const res = await api(path, { json, ...(cookie ? { headers: { cookie } } : {}) });
      jar.store(res.setCookies, `/v1${path}`);
      return res;
    };
    const signup = await browser('/api/signup', { name: 'Owner', email, password });
    expect(signup.status).toBe(201);
    expect(signup.setCookies.find((c) => c.startsWith('sl_device='))).toMatch(/; Path=\/v1\/api\/login;/);
    expect(jar.header('/v1/api/login')).toMatch(/sl_device=/);
    // The owner's browser signs in again: no notice. Then a browser that never did: one notice, queued after.
    expect((await browser('/api/login', { email, password })).status).toBe(200);
    expect((await api('/api/login', { json: { email, password } })).status).toBe(200);
    const isNotice = (m: { to: string; subject: string }) => m.to === email && m.subject.includes('New sign-in');
    await poll(async () => sent.filter(isNotice), (found) => found.length > 0, 10_000);
    expect(sent.filter(isNotice)).toHaveLength(1);
    // Others' failures lock the account for every client without its device cookie; the owner's browser is let in.
    for (let i = 0; i < 4; i++) await api('/api/login', { json: { email, password: `guess ${i}` } });
    expect((await api('/api/login', { json: { email, password } })).status).toBe(429);
    expect((await browser('/api/login', { email, password })).status).toBe(200);
  });

  it('answers the guard’s 503 when the store does not answer', async () => {
    const failing = { me: () => Promise.reject(new StoreUnavailable()) } as Partial<Accounts> as Accounts;
    const down = await listen(await APPS[name]!({ api: createHttpApi({ accounts: failing }) }));
    try {
      const res = await fetch(`${down.url}/me`, { headers: { cookie: 'sl_session=abc' } });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
    } finally {
      await down.close();
    }
  });
});

describe('what each framework adds', () => {
  let service: Service;
  const servers: { close(): Promise<void> }[] = [];
  beforeAll(async () => {
    service = await createService({ store: createMemoryStore(), hasher });
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await service?.close();
  });
  const start = async (listener: (req: IncomingMessage, res: ServerResponse) => void) => {
    const server = await listen(listener);
    servers.push(server);
    return server.url;
  };
  const signup = (url: string, path: string, email: string) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ada', email, password: 'long enough' }) });

  it.each([
    ['express 5', (service: HttpService) => expressApp(express5, service)],
    ['express 4', express4App],
  ])('%s: after express.json(), a body it refused is the contract’s 400 and costs no limit; one it parsed is used', async (_name, app) => {
    const url = await start(app(service));
    const malformed = await fetch(`${url}/v1/api/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": "Ada",' });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('ratelimit')).toBeNull();
    expect(await malformed.json()).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
    const valid = await signup(url, '/v1/api/signup', `parsed.${_name.replace(/\W/g, '')}@example.com`);
    expect(valid.status).toBe(201);
  });

  it('koa: nested in a router, allowedMethods() still answers for the router’s own paths', async () => {
    const app = new Koa();
    const router = new Router();
    router.get('/v1/thing', (ctx) => void (ctx.body = 'thing'));
    router.use('/v1', onKoa.accounts(service));
    app.use(router.routes()).use(router.allowedMethods());
    const url = await start(app.callback());
    const wrong = await fetch(`${url}/v1/thing`, { method: 'POST' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('HEAD, GET');
    expect((await fetch(`${url}/v1/thing`)).status).toBe(200);
    // The service's own paths: the contract's 405, with its Allow.
    const contract = await fetch(`${url}/v1/api/signup`);
    expect(contract.status).toBe(405);
    expect(await contract.json()).toEqual({ ok: false, error: 'Method not allowed; use POST, OPTIONS', code: 'method_not_allowed' });
  });

  it('koa: under a prefix with a parameter, the documents name the prefix as requested', async () => {
    const app = new Koa();
    const router = new Router({ prefix: '/t/:tenant' });
    router.use(onKoa.accounts(service));
    app.use(router.routes());
    const url = await start(app.callback());
    const openapi = (await (await fetch(`${url}/t/acme/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(openapi.servers[0]!.url).toBe(`${url}/t/acme`);
  });

  it('koa: under the service’s basePath, the app’s routes mounted after it still answer inside the prefix; unknown paths get the contract’s 404', async () => {
    const prefixed = await createService({ store: createMemoryStore(), hasher, basePath: '/accounts' });
    try {
      const app = new Koa();
      app.use(onKoa.accounts(prefixed));
      const router = new Router();
      router.get('/accounts/extra', (ctx) => void (ctx.body = { extra: true }));
      app.use(router.routes());
      const url = await start(app.callback());
      expect(await (await fetch(`${url}/accounts/extra`)).json()).toEqual({ extra: true });
      const missing = await fetch(`${url}/accounts/nothing-here`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ ok: false, error: 'Not found', code: 'unknown_path' });
      expect((await fetch(`${url}/.well-known/api-catalog`)).status).toBe(200);
      expect((await fetch(`${url}/accounts/api/health`)).status).toBe(200);
    } finally {
      await prefixed.close();
    }
  });

  it('koa: after koa-bodyparser, the body it read is used', async () => {
    const app = new Koa();
    app.use(bodyParser());
    app.use(onKoa.accounts(service));
    const url = await start(app.callback());
    expect((await signup(url, '/api/signup', 'after.bodyparser@example.com')).status).toBe(201);
  });

  it.each([
    ['koa-bodyparser', () => bodyParser({ onerror: onKoa.deferBodyError })],
    ['@koa/bodyparser', () => koaBodyParser({ onError: onKoa.deferBodyError })],
  ])('koa: %s mounted first with deferBodyError: the contract’s JSON errors on the service’s paths under a nested router, the parser’s own on the app’s', async (_name, parser) => {
    // A service of its own: the cases count against its contact limit (5 an hour per address).
    const own = await createService({ store: createMemoryStore(), hasher, mailer: { send: async () => {} } });
    servers.push({ close: () => own.close() });
    const router = new Router();
    router.use('/v1', onKoa.accounts(own));
    router.post('/echo', (ctx) => void (ctx.body = { echoed: ctx.request.body }));
    const app = new Koa().use(parser()).use(router.routes()).use(router.allowedMethods());
    // Koa's own log of the app route's parse error, which the case provokes.
    app.silent = true;
    const url = await start(app.callback());
    const send = (path: string, body: string) => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const cases: [string, number, string][] = [
      ['{"name": "Ada",', 400, 'malformed_json'],
      ['null', 400, 'validation'],
      ['"a string"', 400, 'validation'],
      [JSON.stringify({ name: 'Ada', email: 'ada@example.com', message: 'x'.repeat(1024 * 1024) }), 413, 'body_too_large'],
      [JSON.stringify({ name: 'Ada', email: 'ada@example.com', message: 'y'.repeat(2 * 1024 * 1024) }), 413, 'body_too_large'],
    ];
    for (const [body, status, code] of cases) {
      const res = await send('/v1/api/contact', body);
      expect([body.slice(0, 20), res.status, res.headers.get('content-type')]).toEqual([body.slice(0, 20), status, 'application/json; charset=utf-8']);
      expect(await res.json()).toMatchObject({ ok: false, code });
    }
    expect((await send('/v1/api/contact', JSON.stringify({ name: 'Ada', email: 'ada@example.com', message: 'Parsed first, then used.' }))).status).toBe(200);
    // The app's own route: the parser's error, as without the service.
    const echo = await send('/echo', '{"broken":');
    expect(echo.status).toBe(400);
    expect(echo.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await (await send('/echo', '{"a":1}')).json()).toEqual({ echoed: { a: 1 } });
  });

  it('fastify: the plugin’s content-type parsing holds for its own routes only', async () => {
    const app = Fastify();
    await app.register(onFastify.accounts(service), { prefix: '/v1' });
    app.post('/echo', async (request) => request.body);
    await app.ready();
    const url = await start((req, res) => app.routing(req, res));
    // The app's own route keeps Fastify's JSON parser.
    const echo = await fetch(`${url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await echo.json()).toEqual({ a: 1 });
    // The service reads its own bodies: gzip, which Fastify's parser does not take, is the contract's to decompress.
    const gzipped = await fetch(`${url}/v1/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ name: 'Ada', email: 'ada@example.com', message: 'Hello through gzip.' })),
    });
    expect(gzipped.status).toBe(200);
  });

  it('hono: app.mount gives the service the prefix it strips', async () => {
    const app = new Hono();
    app.mount('/m', onHono.accounts(service).fetch);
    const url = await start(getRequestListener(app.fetch));
    const openapi = (await (await fetch(`${url}/m/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(openapi.servers[0]!.url).toBe(`${url}/m`);
    expect((await signup(url, '/m/api/signup', 'mounted.hono@example.com')).status).toBe(201);
  });

  it('node: the listener alone answers every path, the contract’s 404 included', async () => {
    const url = await start(onNode.accounts(service));
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    const missing = await fetch(`${url}/elsewhere`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ ok: false, error: 'Not found', code: 'unknown_path' });
  });
});
