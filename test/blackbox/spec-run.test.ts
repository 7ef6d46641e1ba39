/**
 * The black-box script (spec-run.ts) run as a user runs it, with plain node, against the service in
 * this process: it must pass against the real service, keep within the default budgets, and fail
 * when an answer breaks the contract.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pbkdf2PasswordHasher } from '@sl-accounts/service/core';
import Koa from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import { accounts } from '@sl-accounts/service/http-node';
import * as onKoa from '@sl-accounts/http-koa';
import type { RunningServer } from '@sl-accounts/server';
import { createService, type Service } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { spawnServer, START_FLAGS, type ServerProcess } from '../support/server-process.ts';
import { startTestServer, STORES } from '../support/server.ts';

const SCRIPT = fileURLToPath(new URL('./spec-run.ts', import.meta.url));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runScript(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

interface JsonReport {
  readonly passed: number;
  readonly failed: number;
  readonly spent: Record<string, { signup: number; login: number; contact: number }>;
  readonly checks: { name: string; ok: boolean; expected?: string; got?: string }[];
}

const post = (url: string, body: object) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('spec-run.ts against a server that trusts no proxy (the default run)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ store: 'memory' });
  });
  afterAll(() => server.close());

  it('passes every check, one line each, and closes with the count', async () => {
    const { code, stdout, stderr } = await runScript('--base', server.url);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('FAIL')), stderr).toEqual([]);
    expect(code).toBe(0);
    const [, passed] = /^(\d+) passed, 0 failed$/.exec(lines.at(-1)!) ?? [];
    expect(Number(passed)).toBe(lines.length - 1);
    expect(Number(passed)).toBeGreaterThan(80);
    expect(lines.slice(0, -1).every((l) => l.startsWith('ok '))).toBe(true);

    // The server, not the script's own tally, shows the budget left: one more of each is allowed.
    const signup = await post(`${server.url}/api/signup`, { name: 'After', email: 'after.run@example.com', password: 'long enough' });
    expect(signup.status).toBe(201);
    expect(signup.headers.get('ratelimit')).toMatch(/"signup";r=0;/);
    const login = await post(`${server.url}/api/login`, { email: 'after.run@example.com', password: 'long enough' });
    expect(login.status).toBe(200);
    expect(Number(/"login";r=(\d+)/.exec(login.headers.get('ratelimit') ?? '')?.[1])).toBeGreaterThanOrEqual(0);
    const contact = await post(`${server.url}/api/contact`, { name: 'After', email: 'after.run@example.com', message: 'One more message.' });
    expect(contact.status).toBe(200);
    expect(contact.headers.get('ratelimit')).toMatch(/"contact";r=0;/);
  });

  it('refuses to run without a usable --base', async () => {
    for (const args of [[], ['--base', 'not a url'], ['--unknown']]) {
      const { code, stderr } = await runScript(...args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toContain('usage: node spec-run.ts --base <url>');
    }
  });
});

describe.skipIf(!STORES.some((s) => s.kind === 'sqlite' && s.skip === undefined))('spec-run.ts against `pnpm start` with STORE=sqlite (its own process, one file)', { tags: ['process'] }, () => {
  let dir: string;
  let app: ServerProcess;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sl-spec-run-sqlite-'));
    app = await spawnServer({ STORE: 'sqlite', DATA_DIR: dir }, 'start', { nodeFlags: START_FLAGS });
  });
  afterAll(async () => {
    await app?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('passes every check, on the file in DATA_DIR', async () => {
    expect(app.output()).toContain(`"store":"sqlite","file":${JSON.stringify(join(dir, 'accounts.sqlite'))}`);
    const { code, stdout, stderr } = await runScript('--base', app.url);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('FAIL')), `${stderr}\n${app.output().slice(-2000)}`).toEqual([]);
    expect(code).toBe(0);
    expect(Number(/^(\d+) passed, 0 failed$/.exec(lines.at(-1)!)?.[1])).toBeGreaterThan(80);
    expect((await stat(join(dir, 'accounts.sqlite'))).size).toBeGreaterThan(0);
  });
});

describe('spec-run.ts --trust-proxy against a server with TRUST_PROXY=1', () => {
  let server: RunningServer;
  let proxy: Server | undefined;
  beforeAll(async () => {
    server = await startTestServer({ store: 'memory', env: { TRUST_PROXY: '1' } });
  });
  afterAll(async () => {
    await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
    await server.close();
  });

  it('--limits: every limit answers 429 at the spec\'s count, and the run still passes', async () => {
    const { code, stdout } = await runScript('--base', server.url, '--trust-proxy', '--limits', '--json');
    const report = JSON.parse(stdout) as JsonReport;
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(code).toBe(0);
    expect(report.failed).toBe(0);
    const names = report.checks.map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'POST /api/signup: 429 after 10 requests (10 per 3600 s from a new address)',
        'POST /api/login: 429 after 20 requests (20 per 900 s from a new address)',
        'POST /api/contact: 429 after 5 requests (5 per 3600 s from a new address)',
        'POST /api/login: 20 failed logins for one e-mail from different addresses, then 429',
      ]),
    );
    expect(names.filter((n) => n.startsWith('POST /api/signup: another address of the same IPv6 /56 shares the limit'))).toHaveLength(1);
    // Each group claimed its own address, none beyond the limits except the ones --limits spends.
    expect(Object.keys(report.spent).length).toBeGreaterThan(5);
  });

  it('reports the fault when the session cookie loses Secure on the way, and exits 1', async () => {
    proxy = await startRewritingProxy(server.url, (cookie) => cookie.replace(/;\s*Secure/i, ''));
    const { code, stdout } = await runScript('--base', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, '--trust-proxy');
    const lines = stdout.trimEnd().split('\n');
    expect(code).toBe(1);
    const failures = lines.filter((l) => l.startsWith('FAIL'));
    expect(failures).toHaveLength(2);
    for (const line of failures) expect(line).toMatch(/^FAIL POST \/api\/(signup|login): Set-Cookie sl_session .*: expected Secure, got sl_session=<token>; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(lines.at(-1)).toMatch(/^\d+ passed, 2 failed$/);
  });
});

describe('spec-run.ts --no-docs-page', () => {
  let service: Service;
  let embedded: Server;
  let server: RunningServer;
  beforeAll(async () => {
    // The service as an embedder composes it without the docs page, under a prefix.
    service = await createService({ store: createMemoryStore(), hasher: new Pbkdf2PasswordHasher({ iterations: 1_000 }), basePath: '/accounts' });
    embedded = createServer(accounts(service));
    await new Promise<void>((resolve) => embedded.listen(0, '127.0.0.1', resolve));
    server = await startTestServer({ store: 'memory' });
  });
  afterAll(async () => {
    await new Promise((resolve) => embedded.close(resolve));
    await Promise.all([service.close(), server.close()]);
  });

  it('passes against a service embedded without its docs page', async () => {
    const { port } = embedded.address() as AddressInfo;
    const { code, stdout } = await runScript('--base', `http://127.0.0.1:${port}/accounts`, '--no-docs-page');
    const lines = stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);
    expect(code).toBe(0);
    expect(lines).toContain('ok without a docs page: neither the API catalog nor GET / links one');
  });

  it('fails against a service whose documents link a docs page', async () => {
    const { code, stdout } = await runScript('--base', server.url, '--no-docs-page');
    expect(code).toBe(1);
    expect(stdout.split('\n').filter((l) => l.startsWith('FAIL'))).toEqual([expect.stringMatching(/^FAIL without a docs page: neither the API catalog nor GET \/ links one: /)]);
  });
});

describe.each(['', '/accounts'])('spec-run.ts against the Express example (express.json() parses first) at "%s"', (basePath) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ host: 'express', store: 'memory', env: { BASE_PATH: basePath } });
  });
  afterAll(() => server.close());

  it('passes every check, the body rules on what express.json() parsed included', async () => {
    const { code, stdout, stderr } = await runScript('--base', `${server.url}${basePath}`);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('FAIL')), stderr).toEqual([]);
    expect(lines).toContain('ok POST /api/login: 400 for a JSON array nested 5,000 deep');
    expect(lines).toContain('ok POST /mcp: 400 for a JSON array nested 5,000 deep');
    expect(lines.at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    expect(code).toBe(0);
  });
});

/** A reverse proxy that passes everything through, with each Set-Cookie rewritten. */
async function startRewritingProxy(target: string, rewrite: (cookie: string) => string): Promise<Server> {
  const upstream = new URL(target);
  const proxy = createServer((req, res) => {
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const headers = { ...answer.headers };
        if (headers['set-cookie']) headers['set-cookie'] = headers['set-cookie'].map(rewrite);
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return proxy;
}

describe('spec-run.ts against the README’s Koa app with koa-bodyparser mounted first', () => {
  let service: Service;
  let server: Server;
  let base: string;
  beforeAll(async () => {
    service = await createService({ store: createMemoryStore(), hasher: new Pbkdf2PasswordHasher({ iterations: 1_000 }), mailer: { send: async () => {} } });
    const router = new Router().use('/accounts', onKoa.accounts(service));
    router.get('/me', onKoa.requireSession(service), (ctx) => void (ctx.body = ctx.state.user));
    // The one line docs/embedding.md gives an app whose parser comes first.
    const app = new Koa().use(bodyParser({ onerror: onKoa.deferBodyError })).use(router.routes()).use(router.allowedMethods());
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/accounts`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await service?.close();
  });

  it('passes every check under the router’s prefix', async () => {
    const { code, stdout, stderr } = await runScript('--base', base, '--no-docs-page');
    const lines = stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('FAIL')), stderr).toEqual([]);
    expect(code).toBe(0);
    expect(lines.at(-1)).toMatch(/^\d+ passed, 0 failed$/);
  });
});
