/**
 * `pnpm start` is a Koa 3 server (issue 40, docs/decisions/0050-koa-server.md): its entry serves
 * through Koa, and an operator's own file (examples/koa/start.ts, the one the README shows) adds
 * middleware and `@koa/router` routes, with koa-bodyparser, to the same server and configuration,
 * before or after the service's middleware.
 */
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bodyParser from 'koa-bodyparser';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { deferBodyError } from '@sl-accounts/http-koa';
import { koaServer, loadConfig, startServer, type KoaExtension, type RunningServer } from '@sl-accounts/server';
import { START_FLAGS, spawnServer, type ServerProcess } from '../support/server-process.ts';
import { TEST_ITERATIONS } from '../support/server.ts';

const json = { 'content-type': 'application/json' };
const ada = JSON.stringify({ name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' });

/** A module hook that writes `koa-loaded` to standard error when Koa's code is loaded. */
const KOA_HOOK = `import { registerHooks } from 'node:module';
let said = false;
registerHooks({
  load(url, context, next) {
    if (!said && /\\/node_modules\\/koa\\/(dist|lib)\\//.test(url)) { said = true; process.stderr.write('koa-loaded\\n'); }
    return next(url, context);
  },
});
`;

describe('pnpm start, a Koa server', () => {
  let server: ServerProcess | undefined;
  afterEach(() => server?.stop());

  it('serves through Koa: its entry loads Koa, answers the API, and stops cleanly on SIGTERM', { tags: ['process'] }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sl-koa-hook-'));
    try {
      const hook = join(dir, 'koa-hook.mjs');
      await writeFile(hook, KOA_HOOK);
      server = await spawnServer({ STORE: 'memory' }, 'start', { nodeFlags: [...START_FLAGS, `--import=${hook}`] });
      const res = await fetch(`${server.url}/api/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ ok: true, status: 'ok' });
      expect(server.output()).toContain('koa-loaded');
      const exited = once(server.child, 'exit');
      server.signal('SIGTERM');
      expect((await exited)[0]).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is the README\'s operator file with nothing added: the file is the README\'s, and main.ts runs `run()`', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const shown = /<!-- file: examples\/koa\/start\.ts -->\n```ts\n([\s\S]*?)\n```/.exec(readme)?.[1];
    const file = await readFile(join(root, 'examples/koa/start.ts'), 'utf8');
    expect(shown, 'README shows examples/koa/start.ts').toBeDefined();
    // The file without its header comment, as the README shows it.
    expect(file.replace(/^\/\*\*[\s\S]*?\*\/\n/, '').trim()).toBe(shown!.trim());
    expect(await readFile(join(root, 'packages/server/src/main.ts'), 'utf8')).toMatch(/await run\(\);/);
  });

  it('extended by an operator\'s file (examples/koa/start.ts): its routes, its body parser, the service beside them', { tags: ['process'] }, async () => {
    server = await spawnServer({ STORE: 'memory', TRUST_PROXY: '1' }, 'koa-start');
    const { url } = server;
    expect(await (await fetch(`${url}/hello`)).json()).toEqual({ ok: true, hello: 'world' });
    // koa-bodyparser parses the operator's route's body.
    const echoed = await fetch(`${url}/hello`, { method: 'POST', headers: json, body: JSON.stringify({ a: 1 }) });
    expect(await echoed.json()).toEqual({ ok: true, hello: { a: 1 } });
    expect((await fetch(`${url}/hello`, { method: 'DELETE' })).status).toBe(405);
    // The service reads its own bodies: malformed JSON is the contract's 400, not the parser's.
    const malformed = await fetch(`${url}/api/signup`, { method: 'POST', headers: json, body: '{"name":' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ ok: false, error: expect.any(String) });
    const signup = await fetch(`${url}/api/signup`, { method: 'POST', headers: { ...json, 'x-forwarded-for': '192.0.2.7' }, body: ada });
    expect(signup.status).toBe(201);
    const cookie = /sl_session=[^;]+/.exec(signup.headers.get('set-cookie') ?? '')![0];
    expect(await (await fetch(`${url}/hello/me`, { headers: { cookie } })).json()).toEqual({ ok: true, hello: 'ada@example.com' });
    const guarded = await fetch(`${url}/hello/me`);
    expect(guarded.status).toBe(401);
    expect(await guarded.json()).toMatchObject({ ok: false });
    // What nothing answers is the contract's JSON 404.
    const unknown = await fetch(`${url}/nothing-here`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ ok: false, error: 'Not found' });
  });
});

describe('koaServer(extend): middleware before the service', () => {
  let running: RunningServer | undefined;
  afterEach(() => running?.close());
  /** `pnpm start`'s app, extended, on the memory store at a port of its own. */
  const start = async (extend: KoaExtension) => {
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', STORE: 'memory', PBKDF2_ITERATIONS: String(TEST_ITERATIONS), LOG_LEVEL: 'silent' });
    running = await startServer(config, koaServer(extend), { logger: pino({ level: 'silent' }) });
    return running;
  };

  it('with a body parser placed before `accounts` (deferBodyError), the service answers under the contract', { tags: ['socket'] }, async () => {
    const seen: string[] = [];
    const { url } = await start(({ app, router, accounts }) => {
      app.use(async (ctx, next) => {
        seen.push(ctx.path);
        await next();
      });
      app.use(bodyParser({ onerror: deferBodyError }));
      app.use(accounts);
      router.post('/echo', (ctx) => void (ctx.body = ctx.request.body));
    });
    const malformed = await fetch(`${url}/api/signup`, { method: 'POST', headers: json, body: '{"name":' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ ok: false });
    expect((await fetch(`${url}/api/signup`, { method: 'POST', headers: json, body: ada })).status).toBe(201);
    expect(await (await fetch(`${url}/echo`, { method: 'POST', headers: json, body: '{"b":2}' })).json()).toEqual({ b: 2 });
    // The operator's first middleware saw the service's requests too.
    expect(seen).toEqual(['/api/signup', '/api/signup', '/echo']);
  });

  it('writes each answer, the service\'s and the operator\'s, in the check phase after it is made', { tags: ['socket'] }, async () => {
    const order: string[] = [];
    const { url } = await start(({ app, router, accounts }) => {
      // Queued while the request is answered: an answer written at once would come before it.
      app.use(async (ctx, next) => {
        const end = ctx.res.end.bind(ctx.res) as (...args: unknown[]) => unknown;
        ctx.res.end = ((...args: unknown[]) => (order.push(`written ${ctx.path}`), end(...args))) as typeof ctx.res.end;
        setImmediate(() => order.push(`check phase ${ctx.path}`));
        await next();
      });
      app.use(accounts);
      router.get('/mine', (ctx) => void (ctx.body = { ok: true }));
    });
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    expect((await fetch(`${url}/mine`)).status).toBe(200);
    expect(order).toEqual(['check phase /api/health', 'written /api/health', 'check phase /mine', 'written /mine']);
  });
});
