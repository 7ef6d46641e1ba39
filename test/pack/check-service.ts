/**
 * The packaging test's checks of a running service: the examples served from the installed
 * packages (`serveAndCheck`, a short walk through the API), and the black-box suite run against a
 * snippet app (`runSpec`).
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SPEC_RUN = fileURLToPath(new URL('../blackbox/spec-run.ts', import.meta.url));

/** Starts `entry` with plain node (memory store), checks the service over HTTP, and stops it. */
export async function serveAndCheck(entry: string, cwd: string): Promise<void> {
  const child = spawn(process.execPath, [entry], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', STORE: 'memory', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PBKDF2_ITERATIONS: '1000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening" line within 30 s:\n${output}`)), 30_000);
      child.once('exit', (code) => reject(new Error(`exited (code ${code}) before listening:\n${output}`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        output += `${line}\n`;
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'listening' && entry.url) {
            clearTimeout(timer);
            resolve(entry.url);
          }
        } catch {
          // not a log line
        }
      });
    });
    await checkService(url);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- server output ---\n${output}`, { cause: error });
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function checkService(base: string): Promise<void> {
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(new URL(path, base), init);
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    return { status: res.status, headers: res.headers, text, json: type.includes('json') && text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };
  const post = (path: string, body: unknown, cookie?: string) =>
    call(path, { method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
  const checks: [string, () => Promise<void>][] = [];
  const check = (title: string, fn: () => Promise<void>) => checks.push([title, fn]);

  const email = `pack.${Date.now()}@example.com`;
  let cookie = '';
  check('GET /api/health is 200 ok', async () => {
    const res = await call('/api/health');
    assert.equal(res.status, 200);
    assert.equal(res.json?.ok, true);
  });
  check('POST /api/signup is 201 and sets sl_session', async () => {
    const res = await post('/api/signup', { name: 'Ada Lovelace', email, password: 'analytical engine' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json?.ok, true);
    const set = res.headers.getSetCookie().find((c) => c.startsWith('sl_session='));
    assert.ok(set, 'no sl_session cookie');
    assert.match(set, /HttpOnly/);
  });
  check('a second signup with that address is 409', async () => {
    const res = await post('/api/signup', { name: 'Ada Lovelace', email, password: 'analytical engine' });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.json?.ok, false);
  });
  check('POST /api/login with a wrong password is 401', async () => {
    const res = await post('/api/login', { email, password: 'not the password' });
    assert.equal(res.status, 401, res.text);
  });
  check('POST /api/login is 200 and sets sl_session', async () => {
    const res = await post('/api/login', { email, password: 'analytical engine' });
    assert.equal(res.status, 200, res.text);
    cookie = (res.headers.getSetCookie().find((c) => c.startsWith('sl_session=')) ?? '').split(';')[0] ?? '';
    assert.ok(cookie.length > 'sl_session='.length, 'no session cookie');
  });
  check('GET /api/me with the cookie is 200 with the user', async () => {
    const res = await call('/api/me', { headers: { cookie } });
    assert.equal(res.status, 200, res.text);
    assert.equal((res.json?.user as { email?: string } | undefined)?.email, email);
  });
  check('GET /api/me without a cookie is 401', async () => {
    assert.equal((await call('/api/me')).status, 401);
  });
  check('POST /api/contact is accepted; bad input is a 400 ErrorResponse', async () => {
    const ok = await post('/api/contact', { name: 'Ada', email, message: 'Hello from the packaging test.' });
    assert.ok(ok.status === 200 || ok.status === 201, ok.text);
    const bad = await post('/api/contact', { name: 'Ada', email: 'not an address', message: 'x' });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.json?.ok, false);
    assert.equal(typeof bad.json?.error, 'string');
  });
  check('POST /api/logout ends the session', async () => {
    const res = await post('/api/logout', {}, cookie);
    assert.equal(res.status, 200, res.text);
    assert.equal((await call('/api/me', { headers: { cookie } })).status, 401);
  });
  check('GET /openapi.json is an OpenAPI 3.1 document', async () => {
    const res = await call('/openapi.json');
    assert.equal(res.status, 200);
    assert.match(String(res.json?.openapi), /^3\.1\./);
  });
  check('GET /docs/api, /auth.md and /.well-known/api-catalog answer 200', async () => {
    for (const path of ['/docs/api', '/auth.md', '/.well-known/api-catalog']) assert.equal((await call(path)).status, 200, path);
  });
  check('POST /mcp initialize answers with the server info (the SDK loads from the install)', async () => {
    const res = await call('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack', version: '1' } } }),
    });
    assert.equal(res.status, 200, res.text);
    assert.match(res.text, /"serverInfo"/);
  });
  check('an unknown path is a 404 ErrorResponse', async () => {
    const res = await call('/api/nothing-here');
    assert.equal(res.status, 404);
    assert.equal(res.json?.ok, false);
  });
  for (const [title, fn] of checks) {
    await fn();
    console.log(`ok  ${title}`);
  }
}

/**
 * Starts `entry` (a snippet app) with plain node on `port`, waits until `base` answers, runs the
 * black-box suite against `base` (an app without the docs page: `--no-docs-page`), and stops it. Fails with the suite's failures and the app's output.
 */
export async function runSpec(entry: string | readonly string[], cwd: string, env: Record<string, string>, base: string, guard?: string, page?: string): Promise<string> {
  // A path runs with this node; a command (bun, deno, next start) as it is.
  const [command, ...args] = typeof entry === 'string' ? [process.execPath, entry] : entry;
  const child = spawn(command!, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await answering(child, `${base}/api/health`, () => output);
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(process.execPath, [SPEC_RUN, '--base', base, '--no-docs-page'], { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, out) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: out }),
      ),
    );
    const lines = stdout.trimEnd().split('\n');
    const failures = lines.filter((line) => line.startsWith('FAIL'));
    assert.equal(code, 0, `spec-run against ${base} failed:\n${failures.join('\n') || stdout}`);
    // One signup for both checks: the black-box run has spent most of this client's signup budget.
    const session = guard || page ? await signUp(base) : undefined;
    if (guard) await checkGuard(guard, session!);
    if (page) await checkPage(page, session!);
    return `${lines.at(-1) ?? ''}${guard ? `; ${guard}: 401 without a session, the user with one` : ''}${page ? `; ${page}: a redirect without a session, the user's address with one` : ''}`;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- app output ---\n${output}`, { cause: error });
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
  }
}

/** A new account's session cookie and address. */
async function signUp(base: string): Promise<{ readonly cookie: string; readonly email: string }> {
  const email = `guard.${Date.now()}@example.com`;
  const signup = await fetch(`${base}/api/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Grace Hopper', email, password: 'a long enough one' }) });
  assert.equal(signup.status, 201, await signup.text());
  return { cookie: (signup.headers.getSetCookie().find((c) => c.startsWith('sl_session=')) ?? '').split(';')[0]!, email };
}

/** The app's guarded route `guard`: 401 without a session, the signed-up user with one. */
async function checkGuard(guard: string, { cookie, email }: { readonly cookie: string; readonly email: string }): Promise<void> {
  const refused = await fetch(guard);
  assert.equal(refused.status, 401, `${guard} without a session`);
  assert.equal(((await refused.json()) as { ok?: boolean }).ok, false);
  const user = await fetch(guard, { headers: { cookie } });
  assert.equal(user.status, 200, `${guard} with the session`);
  assert.equal(((await user.json()) as { email?: string }).email, email);
}

/** The app's guarded page `page` (a Next.js server component): a redirect to /signin without a session, the user's address with one. */
async function checkPage(page: string, { cookie, email }: { readonly cookie: string; readonly email: string }): Promise<void> {
  const refused = await fetch(page, { redirect: 'manual' });
  assert.ok(refused.status === 307 || refused.status === 303, `${page} without a session: ${refused.status}`);
  assert.match(refused.headers.get('location') ?? '', /\/signin$/);
  const shown = await fetch(page, { headers: { cookie } });
  assert.equal(shown.status, 200, `${page} with the session`);
  assert.match(await shown.text(), new RegExp(`Signed in as (<!-- -->)?${email.replaceAll('.', '\\.')}`));
}

/** Polls `url` until it answers 200, within 60 s (a first Deno run or next start compiles); fails at once when the app exits. */
async function answering(child: ChildProcess, url: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  if (child.exitCode !== null) exited = child.exitCode;
  for (;;) {
    if (exited !== null) throw new Error(`the app exited (code ${exited}) before ${url} answered:\n${output()}`);
    const status = await fetch(url).then((res) => res.status, () => 0);
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within 60 s (last: ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
