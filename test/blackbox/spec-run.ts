#!/usr/bin/env node
/**
 * A black-box run of the account and contact API's contract against any running instance, by URL
 * only. It depends on nothing but Node (>= 22.18, which runs this TypeScript file as it is), so it can
 * be copied out of the repository and pointed at a deployment:
 *
 *   node spec-run.ts --base http://127.0.0.1:3800            # the service at the root
 *   node spec-run.ts --base https://example.org/accounts     # embedded under a prefix
 *   node spec-run.ts --base … --trust-proxy --limits --json
 *
 * What it checks is the contract and the decisions a client can observe (statuses, bodies, the
 * session cookie, caching, the discovery documents, /mcp). Why some checks are shaped as they are:
 *
 * - Budget. The per-IP limits are part of what is checked, so by default the run stays inside them:
 *   at most 9 signups, 19 logins and 4 contacts from one address (the limits are 10, 20 and 5), with
 *   e-mail addresses unique to the run. A second default run against the same server within the hour
 *   finds the signup budget spent; its 429s are reported as such.
 * - `--trust-proxy`: the server honours `X-Forwarded-For` (TRUST_PROXY=1). Each group of checks then
 *   sends its own random address from 2001:db8::/32 (one /56 each, the unit the service counts IPv6
 *   clients by), so runs never share a budget and counts can be checked exactly.
 * - `--limits`: spends the budgets on purpose to see the 429s. Without `--trust-proxy` that locks the
 *   caller's address out of signup for an hour.
 */
import { createHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';

interface Options {
  readonly base: string;
  readonly limits: boolean;
  readonly trustProxy: boolean;
  readonly json: boolean;
  readonly timeoutMs: number;
  /** The service runs without its `/docs/api` page (an embedding that did not install it): then nothing may link one. */
  readonly noDocsPage: boolean;
}

interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly expected?: string;
  readonly got?: string;
}

interface Reply {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed body when it is JSON, else `undefined`. */
  readonly body: unknown;
  readonly cookies: readonly SetCookie[];
}

interface SetCookie {
  readonly name: string;
  readonly value: string;
  /** Attribute names in lower case; valueless attributes map to `''`. */
  readonly attributes: ReadonlyMap<string, string>;
  readonly raw: string;
}

interface Send {
  readonly method?: string;
  /** A value to send as JSON, or raw text / bytes with `contentType`. */
  readonly json?: unknown;
  readonly raw?: string | Uint8Array;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
  /** The `sl_session` token to send. */
  readonly session?: string;
  /** The client address to claim in `X-Forwarded-For` (only with --trust-proxy). */
  readonly from?: string;
}

type Json = Record<string, unknown>;

// The spec's numbers (limits per client IP, field bounds, cookie lifetime).
const LIMITS = {
  signup: { limit: 10, window: 3600 },
  login: { limit: 20, window: 900 },
  contact: { limit: 5, window: 3600 },
} as const;
type Operation = keyof typeof LIMITS;
/** Failed logins allowed per e-mail address and 15 minutes, from any addresses (the decided default). */
const FAILED_LOGINS_PER_ACCOUNT = 20;
const SESSION_MAX_AGE = 604_800;
const COOKIE = 'sl_session';
const BODY_LIMIT = 64 * 1024;

const usage = `usage: node spec-run.ts --base <url> [--limits] [--trust-proxy] [--no-docs-page] [--json] [--timeout <ms>]

  --base <url>     the service's base URL, with its prefix if it is mounted under one
  --limits         also exceed the rate limits (spends this address's budgets unless --trust-proxy)
  --trust-proxy    the server trusts X-Forwarded-For (TRUST_PROXY=1): each group of checks claims an
                   address of its own from 2001:db8::/32
  --no-docs-page   the service is embedded without its /docs/api page: check that nothing links one
  --json           print one JSON report instead of lines
  --timeout <ms>   per request (default 15000)`;

function parseOptions(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      base: { type: 'string' },
      limits: { type: 'boolean', default: false },
      'trust-proxy': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      timeout: { type: 'string', default: '15000' },
      'no-docs-page': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  if (!values.base) throw new UsageError('--base is required');
  let base: URL;
  try {
    base = new URL(values.base);
  } catch {
    throw new UsageError(`--base is not a URL: ${values.base}`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new UsageError('--base must be an http or https URL');
  if (base.search || base.hash) throw new UsageError('--base takes no query or fragment');
  const timeoutMs = Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError('--timeout must be a positive whole number of milliseconds');
  return {
    base: `${base.origin}${base.pathname.replace(/\/+$/, '')}`,
    limits: values.limits,
    trustProxy: values['trust-proxy'],
    json: values.json,
    timeoutMs,
    noDocsPage: values['no-docs-page'],
  };
}

class UsageError extends Error {}

// ---------------------------------------------------------------------------------------------------
// Recording checks

class Report {
  readonly checks: Check[] = [];
  readonly replies: Reply[] = [];
  readonly secrets = new Set<string>();
  readonly spent = new Map<string, Record<Operation, number>>();
  private readonly print: boolean;

  constructor(print: boolean) {
    this.print = print;
  }

  pass(name: string): void {
    this.add({ name, ok: true });
  }

  fail(name: string, expected: string, got: string): void {
    this.add({ name, ok: false, expected, got });
  }

  /** Passes when `ok`, else fails with what was expected and what came. */
  that(name: string, ok: boolean, expected: string, got: string): boolean {
    if (ok) this.pass(name);
    else this.fail(name, expected, got);
    return ok;
  }

  /** One check made of several conditions: the first that fails is the one reported. */
  all(name: string, conditions: readonly [ok: boolean, expected: string, got: string][]): boolean {
    const failed = conditions.find(([ok]) => !ok);
    if (failed) this.fail(name, failed[1], failed[2]);
    else this.pass(name);
    return !failed;
  }

  private add(check: Check): void {
    this.checks.push(check);
    if (!this.print) return;
    console.log(check.ok ? `ok ${check.name}` : `FAIL ${check.name}: expected ${check.expected}, got ${check.got}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// HTTP

class Client {
  readonly base: string;
  readonly basePath: string;
  private readonly options: Options;
  private readonly report: Report;

  constructor(options: Options, report: Report) {
    this.options = options;
    this.report = report;
    this.base = options.base;
    this.basePath = new URL(options.base).pathname.replace(/\/+$/, '');
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  async send(path: string, send: Send = {}): Promise<Reply> {
    return this.fetch(this.url(path), send);
  }

  async fetch(url: string, send: Send = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...send.headers };
    let body: string | Uint8Array | undefined;
    if (send.json !== undefined) {
      body = JSON.stringify(send.json);
      headers['content-type'] = send.contentType ?? 'application/json';
    } else if (send.raw !== undefined) {
      body = send.raw;
      headers['content-type'] = send.contentType ?? 'application/json';
    }
    if (send.session !== undefined) headers.cookie = `${COOKIE}=${send.session}`;
    if (send.from !== undefined && this.options.trustProxy) headers['x-forwarded-for'] = send.from;
    const method = send.method ?? (body === undefined ? 'GET' : 'POST');
    this.count(url, method, headers, send.from);
    const res = await fetch(url, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(this.options.timeoutMs) });
    const text = method === 'HEAD' ? '' : await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const reply: Reply = { method, url, status: res.status, headers: res.headers, text, body: parsed, cookies: res.headers.getSetCookie().map(parseSetCookie) };
    this.report.replies.push(reply);
    return reply;
  }

  /** Keeps the requests that count against a limit, per claimed address, for the report. */
  private count(url: string, method: string, headers: Record<string, string>, from: string | undefined): void {
    const op = (['signup', 'login', 'contact'] as const).find((o) => url === this.url(`/api/${o}`));
    const contentType = headers['content-type'];
    if (!op || method !== 'POST' || !contentType || !/^application\/([^;]*\+)?json\b/i.test(contentType)) return;
    // Cross-site browser requests are refused before they are counted (the run sends only foreign ones).
    if (headers['sec-fetch-site'] !== undefined || headers.origin !== undefined) return;
    const who = this.options.trustProxy && from ? from : 'this client';
    const spent = this.report.spent.get(who) ?? { signup: 0, login: 0, contact: 0 };
    spent[op]++;
    this.report.spent.set(who, spent);
  }
}

function parseSetCookie(raw: string): SetCookie {
  const [pair = '', ...attrs] = raw.split(';');
  const eq = pair.indexOf('=');
  const attributes = new Map<string, string>();
  for (const attr of attrs) {
    const i = attr.indexOf('=');
    if (i < 0) attributes.set(attr.trim().toLowerCase(), '');
    else attributes.set(attr.slice(0, i).trim().toLowerCase(), attr.slice(i + 1).trim());
  }
  return { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), attributes, raw };
}

/** A Set-Cookie for the report: the token replaced, since session tokens never belong in output. */
function redact(raw: string): string {
  return raw.replace(/^(\s*[^=;]+=)([^;]+)/, '$1<token>');
}

/** RFC 6265 5.1.4: whether a request for `path` carries a cookie set with `Path=cookiePath`. */
function pathMatches(path: string, cookiePath: string): boolean {
  if (path === cookiePath) return true;
  return path.startsWith(cookiePath) && (cookiePath.endsWith('/') || path[cookiePath.length] === '/');
}

/** An address in a random /56 of 2001:db8::/32 (documentation space), so each group counts on its own. */
function fakeAddress(): string {
  const b = randomBytes(3);
  return `2001:db8:${b.readUInt16BE(0).toString(16)}:${(b[2]! << 8).toString(16)}::1`;
}

/** Another address of the same /56: another /64 and host (the service counts IPv6 clients by /56). */
function sameNetwork(address: string): string {
  const [a, b, c, d = '0'] = address.split(':');
  return `${a}:${b}:${c}:${((parseInt(d, 16) & 0xff00) | 0xff).toString(16)}::7`;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? 'nothing' : text.length > 160 ? `${text.slice(0, 160)}…` : text;
};
const statusOf = (reply: Reply): string => {
  const retry = reply.headers.get('retry-after');
  return `${reply.status}${reply.status === 429 ? ` (rate limited; Retry-After ${retry}: this address's budget is spent, see --trust-proxy)` : ''} ${show(reply.text)}`;
};
/** At most three offenders in a report line, and how many more. */
const few = (items: readonly string[]): string => (items.length === 0 ? 'no responses to judge' : items.length > 3 ? `${items.slice(0, 3).join('; ')}; and ${items.length - 3} more` : items.join('; '));
const isJsonType = (reply: Reply): boolean => /^application\/([^;]*\+)?json\b/i.test(reply.headers.get('content-type') ?? '');

// ---------------------------------------------------------------------------------------------------
// Shared expectations

function expectError(report: Report, name: string, reply: Reply, status: number): boolean {
  const body = reply.body;
  return report.all(name, [
    [reply.status === status, `status ${status}`, statusOf(reply)],
    [isJsonType(reply), 'a JSON content type', show(reply.headers.get('content-type'))],
    [isObject(body) && body.ok === false && typeof body.error === 'string' && body.error !== '', 'ErrorResponse { ok: false, error: string }', show(reply.text)],
  ]);
}

function isUser(value: unknown): value is { id: number; name: string; email: string } {
  return isObject(value) && Number.isInteger(value.id) && typeof value.name === 'string' && typeof value.email === 'string';
}

function expectUser(report: Report, name: string, reply: Reply, status: number, user: { name: string; email: string; id?: number }): number | undefined {
  const body = reply.body;
  const got = isObject(body) ? body.user : undefined;
  const ok = report.all(name, [
    [reply.status === status, `status ${status}`, statusOf(reply)],
    [isJsonType(reply), 'a JSON content type', show(reply.headers.get('content-type'))],
    [isObject(body) && body.ok === true && isUser(got), 'UserResponse { ok: true, user: { id: integer, name, email } }', show(reply.text)],
    [isUser(got) && got.name === user.name && got.email === user.email, `name ${show(user.name)} and email ${show(user.email)}`, show(got)],
    [user.id === undefined || (isUser(got) && got.id === user.id), `id ${user.id}`, show(isUser(got) ? got.id : got)],
    [!/password|hash/i.test(Object.keys(isObject(got) ? got : {}).join(' ')), 'no password or hash field in the user', show(got)],
  ]);
  return ok && isUser(got) ? got.id : undefined;
}

function expectOk(report: Report, name: string, reply: Reply): boolean {
  return report.all(name, [
    [reply.status === 200, 'status 200', statusOf(reply)],
    [isJsonType(reply), 'a JSON content type', show(reply.headers.get('content-type'))],
    [isObject(reply.body) && reply.body.ok === true, 'Ok { ok: true }', show(reply.text)],
  ]);
}

/**
 * The path the session cookie must carry: `/` at the root (decided); under a prefix, any Path that
 * sends it to the prefix's session operations. `/` is the service's own choice there: a host guards its
 * own routes outside the prefix with the service's session, so they must receive the cookie too.
 */
function cookiePathProblem(client: Client, path: string | undefined): string | null {
  if (path === undefined || !path.startsWith('/')) return 'an absolute Path attribute';
  if (client.basePath === '') return path === '/' ? null : 'Path=/';
  for (const api of ['/api/me', '/api/logout']) {
    if (!pathMatches(`${client.basePath}${api}`, path)) return `a Path that sends the cookie to ${client.basePath}${api}`;
  }
  return null;
}

/** Checks a freshly issued session cookie; returns its token (if it has one). */
function expectSessionCookie(report: Report, client: Client, name: string, reply: Reply): string | undefined {
  const cookies = reply.cookies.filter((c) => c.name === COOKIE);
  const cookie = cookies[0];
  const a = cookie?.attributes;
  const pathProblem = cookiePathProblem(client, a?.get('path'));
  report.all(name, [
    [cookies.length === 1, `one Set-Cookie for ${COOKIE}`, show(reply.headers.getSetCookie().map(redact))],
    [/^[A-Za-z0-9_-]{43}$/.test(cookie?.value ?? ''), 'a token of 32 random bytes in base64url (43 characters)', cookie ? `${cookie.value.length} characters${/^[A-Za-z0-9_-]*$/.test(cookie.value) ? '' : ' not all base64url'}` : 'none'],
    [a?.has('httponly') === true, 'HttpOnly', show(cookie && redact(cookie.raw))],
    [a?.has('secure') === true, 'Secure', show(cookie && redact(cookie.raw))],
    [a?.get('samesite')?.toLowerCase() === 'lax', 'SameSite=Lax', show(cookie && redact(cookie.raw))],
    [a?.get('max-age') === String(SESSION_MAX_AGE), `Max-Age=${SESSION_MAX_AGE} (7 days)`, show(cookie && redact(cookie.raw))],
    [pathProblem === null, pathProblem ?? '', show(cookie && redact(cookie.raw))],
  ]);
  // The token is still used when only its attributes are wrong, so one fault is reported once.
  const token = /^[A-Za-z0-9_-]+$/.test(cookie?.value ?? '') ? cookie?.value : undefined;
  if (token) report.secrets.add(token);
  return token;
}

/** A Set-Cookie that makes a browser drop the session cookie: empty, expired, same Path as issued. */
function expectClearedCookie(report: Report, client: Client, name: string, reply: Reply): boolean {
  const cookie = reply.cookies.find((c) => c.name === COOKIE);
  const a = cookie?.attributes;
  const expires = a?.get('expires');
  const expired = a?.get('max-age') === '0' || (expires !== undefined && Date.parse(expires) < Date.now());
  const pathProblem = cookiePathProblem(client, a?.get('path'));
  return report.all(name, [
    [cookie !== undefined, `a Set-Cookie clearing ${COOKIE}`, show(reply.headers.getSetCookie().map(redact))],
    [cookie?.value === '', 'an empty value', show(cookie && redact(cookie.raw))],
    [expired, 'Max-Age=0 or a past Expires', show(cookie && redact(cookie.raw))],
    [pathProblem === null, `the Path it was issued with (${pathProblem})`, show(cookie && redact(cookie.raw))],
  ]);
}

interface RateLimitState {
  readonly quota: number;
  readonly window: number;
  readonly remaining: number;
  readonly reset: number;
}

/** Splits a structured-field list into items of `name` and integer parameters (all this draft uses). */
function parseItems(header: string | null): { name: string; params: Map<string, number> }[] {
  if (!header) return [];
  return header.split(',').map((item) => {
    const [name = '', ...params] = item.split(';').map((s) => s.trim());
    return { name, params: new Map(params.map((p) => [p.split('=')[0]!, Number(p.split('=')[1])])) };
  });
}

/**
 * The per-IP policy of `op` in the RateLimit-Policy / RateLimit headers (draft-ietf-httpapi-ratelimit-
 * headers-10): the item whose quota and window are the spec's (the per-account login policy may
 * share them, so the item named after the operation wins).
 */
function rateLimitOf(reply: Reply, op: Operation): RateLimitState | undefined {
  const { limit, window } = LIMITS[op];
  const policies = parseItems(reply.headers.get('ratelimit-policy')).filter((p) => p.params.get('q') === limit && p.params.get('w') === window);
  const policy = policies.find((p) => p.name === `"${op}"`) ?? policies[0];
  if (!policy) return undefined;
  const state = parseItems(reply.headers.get('ratelimit')).find((i) => i.name === policy.name);
  const remaining = state?.params.get('r');
  const reset = state?.params.get('t');
  if (!Number.isInteger(remaining) || !Number.isInteger(reset)) return undefined;
  return { quota: limit, window, remaining: remaining!, reset: reset! };
}

function expectRateLimitHeaders(report: Report, name: string, reply: Reply, op: Operation): RateLimitState | undefined {
  const state = rateLimitOf(reply, op);
  const { limit, window } = LIMITS[op];
  report.all(name, [
    [state !== undefined, `RateLimit-Policy with q=${limit};w=${window} and its RateLimit item with integer r and t`, `RateLimit-Policy: ${show(reply.headers.get('ratelimit-policy'))}, RateLimit: ${show(reply.headers.get('ratelimit'))}`],
    [state === undefined || (state.remaining >= 0 && state.remaining < limit && state.reset >= 0 && state.reset <= window), `0 <= r < ${limit} and 0 <= t <= ${window}`, show(reply.headers.get('ratelimit'))],
  ]);
  return state;
}

// ---------------------------------------------------------------------------------------------------
// Test data

const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

/** A valid address of exactly `length` characters, unique to the run; DNS labels stay within 63 characters. */
function emailOfLength(length: number, tag: string): string {
  const local = `bb.${tag}.${run}`;
  const tail = '.example.com';
  let filler = length - local.length - 1 - tail.length;
  if (filler < 1) throw new Error(`test data: cannot build an address of ${length} characters`);
  let domain = '';
  for (; filler > 63; filler -= 63) domain += `${'d'.repeat(62)}.`;
  return `${local}@${domain}${'d'.repeat(filler)}${tail}`;
}

const chars = (text: string): number => [...text].length;

// ---------------------------------------------------------------------------------------------------
// The checks

interface Account {
  readonly email: string;
  readonly password: string;
  readonly name: string;
  id?: number;
  session?: string;
}

interface Context {
  readonly client: Client;
  readonly report: Report;
  readonly options: Options;
  /** One address per group of checks (only sent with --trust-proxy). */
  readonly from: Record<'general' | 'signup' | 'login' | 'session' | 'contact', string>;
  a?: Account;
  b?: Account;
}

async function health({ client, report, from }: Context): Promise<void> {
  const reply = await client.send('/api/health', { from: from.general });
  const body = isObject(reply.body) ? reply.body : {};
  report.all('GET /api/health: 200 Health body', [
    [reply.status === 200, 'status 200', statusOf(reply)],
    [isJsonType(reply), 'a JSON content type', show(reply.headers.get('content-type'))],
    [body.ok === true && body.status === 'ok', '{ ok: true, status: "ok" }', show(reply.text)],
    [typeof body.service === 'string' && body.service !== '', 'service: a string', show(body.service)],
    [typeof body.time === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(body.time) && !Number.isNaN(Date.parse(body.time)), 'time: an RFC 3339 date-time', show(body.time)],
  ]);
}

async function routing({ client, report, from }: Context): Promise<void> {
  expectError(report, 'GET /api/no-such-path: 404 ErrorResponse', await client.send(`/api/no-such-path-${run}`, { from: from.general }), 404);
  for (const [method, path, allowed] of [
    ['GET', '/api/signup', 'POST'],
    ['PUT', '/api/me', 'GET'],
    ['PUT', '/api/health', 'GET'],
  ] as const) {
    const reply = await client.send(path, { method, from: from.general });
    const allow = (reply.headers.get('allow') ?? '').split(',').map((m) => m.trim().toUpperCase());
    if (expectError(report, `${method} ${path}: 405 ErrorResponse`, reply, 405)) {
      report.that(`${method} ${path}: Allow names ${allowed}`, allow.includes(allowed) && !allow.includes(method), `Allow with ${allowed} and without ${method}`, show(reply.headers.get('allow')));
    }
  }
}

async function signup(ctx: Context): Promise<void> {
  const { client, report } = ctx;
  const from = ctx.from.signup;
  const post = (json: unknown, send: Send = {}) => client.send('/api/signup', { json, from, ...send });

  // A: the lower bounds. Name " Ab " is 2 characters once trimmed; the password is 8 characters only
  // untrimmed; the address is mixed case with blanks around it.
  const a: Account = { email: `bb.a.${run}@example.com`, password: ' pw 4 6 ', name: 'Ab' };
  report.secrets.add(a.password);
  const created = await post({ name: '  Ab  ', email: `  BB.A.${run.toUpperCase()}@Example.COM `, password: a.password });
  a.id = expectUser(report, 'POST /api/signup: 201 UserResponse, name trimmed, e-mail trimmed and lower-cased', created, 201, a);
  a.session = expectSessionCookie(report, client, 'POST /api/signup: Set-Cookie sl_session with HttpOnly, Secure, SameSite=Lax, Max-Age 604800 and a fitting Path', created);
  const first = expectRateLimitHeaders(report, 'POST /api/signup: RateLimit-Policy and RateLimit headers', created, 'signup');
  if (ctx.options.trustProxy && first) {
    report.that('POST /api/signup: the first signup from a new address leaves 9 of 10', first.remaining === LIMITS.signup.limit - 1, `r=${LIMITS.signup.limit - 1}`, `r=${first.remaining}`);
  }
  ctx.a = a;

  expectError(report, 'POST /api/signup: 409 for a registered e-mail in other case, with blanks', await post({ name: 'Someone Else', email: ` bb.A.${run}@EXAMPLE.com  `, password: 'another password' }), 409);

  const valid = (n: string) => ({ name: 'Valid Name', email: `bb.${n}.${run}@example.com`, password: 'long enough password' });
  const bounds: [string, Json][] = [
    ['a name of 1 character once trimmed', { ...valid('n1'), name: '  x  ' }],
    ['a name of 121 characters', { ...valid('n121'), name: 'n'.repeat(121) }],
    ['an e-mail of 201 characters', { ...valid('e201'), email: emailOfLength(201, 'e201') }],
    ['an e-mail that is not an address', { ...valid('ebad'), email: `bb.nope.${run}.example.com` }],
    // 7 characters are 8 UTF-16 units: the bound counts characters.
    ['a password of 7 characters (8 UTF-16 units)', { ...valid('p7'), password: 'abcdef\u{1F600}' }],
    ['a password of 201 characters', { ...valid('p201'), password: 'p'.repeat(201) }],
  ];
  let last: Reply | undefined;
  for (const [what, body] of bounds) {
    last = await post(body);
    expectError(report, `POST /api/signup: 400 for ${what}`, last, 400);
  }
  const before = last ? rateLimitOf(last, 'signup') : undefined;
  if (created.status === 201 && first && before) {
    report.that('POST /api/signup: invalid JSON requests are counted', before.remaining === first.remaining - 1 - bounds.length, `r=${first.remaining - 1 - bounds.length} after ${1 + bounds.length} more`, `r=${before.remaining}`);
  }

  // Refused before counting (decided): another media type, and browsers' cross-site requests.
  expectError(report, 'POST /api/signup: 400 for a body that is not JSON (text/plain)', await client.send('/api/signup', { raw: JSON.stringify(valid('plain')), contentType: 'text/plain', from }), 400);
  expectError(report, 'POST /api/signup: 403 for a cross-site browser request (Sec-Fetch-Site)', await post(valid('xsite'), { headers: { 'sec-fetch-site': 'cross-site' } }), 403);
  expectError(report, 'POST /api/signup: 403 for a foreign Origin', await post(valid('origin'), { headers: { origin: 'https://attacker.example' } }), 403);

  // B: the upper bounds. 120 characters of name inside blanks, an address of exactly 200 characters,
  // a password of 200 characters (more UTF-16 units) with blanks at both ends.
  const b: Account = { email: emailOfLength(200, 'b'), password: ` ${'\u{1F511}'.repeat(99)}${'b'.repeat(99)} `, name: `B${'n'.repeat(119)}` };
  report.secrets.add(b.password);
  if (chars(b.password) !== 200 || b.email.length !== 200) throw new Error('test data: the upper-bound account is not at the bounds');
  const createdB = await post({ name: `  ${b.name} `, email: b.email, password: b.password });
  b.id = expectUser(report, 'POST /api/signup: 201 at the upper bounds (name 120, e-mail 200, password 200 characters)', createdB, 201, b);
  ctx.b = b;
  const after = rateLimitOf(createdB, 'signup');
  if (before && after) {
    report.that('POST /api/signup: non-JSON and cross-site requests are not counted', after.remaining === before.remaining - 1, `r=${before.remaining - 1}`, `r=${after.remaining}`);
  }
}

async function login(ctx: Context): Promise<void> {
  const { client, report, a, b } = ctx;
  const from = ctx.from.login;
  const post = (json: unknown, send: Send = {}) => client.send('/api/login', { json, from, ...send });
  if (!a?.id || !b?.id) {
    report.fail('POST /api/login: accounts to sign in with', 'the accounts made by the signup checks', 'none: signup failed');
    return;
  }

  // With the session from signup presented: it must be ended (no fixation), and a new one issued.
  const signupSession = a.session;
  const loggedIn = await post({ email: `  BB.A.${run}@EXAMPLE.COM `, password: a.password }, { session: signupSession });
  expectUser(report, 'POST /api/login: 200 UserResponse (e-mail in other case, with blanks)', loggedIn, 200, a);
  const fresh = expectSessionCookie(report, client, 'POST /api/login: Set-Cookie sl_session with every attribute', loggedIn);
  report.that('POST /api/login: a fresh session token', fresh !== undefined && fresh !== signupSession, 'a token other than the one from signup', fresh === undefined ? 'no token' : 'the same token');
  const first = expectRateLimitHeaders(report, 'POST /api/login: RateLimit-Policy and RateLimit headers', loggedIn, 'login');
  if (ctx.options.trustProxy && first) {
    report.that('POST /api/login: the first login from a new address leaves 19 of 20', first.remaining === LIMITS.login.limit - 1, `r=${LIMITS.login.limit - 1}`, `r=${first.remaining}`);
  }
  a.session = fresh;

  if (signupSession) {
    const old = await client.send('/api/me', { session: signupSession, from });
    expectError(report, 'GET /api/me: 401 with the session a later login replaced', old, 401);
  }
  if (fresh) expectUser(report, 'GET /api/me: 200 UserResponse for the new session', await client.send('/api/me', { session: fresh, from }), 200, a);

  const trimmed = await post({ email: a.email, password: a.password.trim() });
  expectError(report, 'POST /api/login: 401 for the password trimmed (passwords are not trimmed)', trimmed, 401);
  const unknown = await post({ email: `bb.unknown.${run}@example.com`, password: a.password });
  expectError(report, 'POST /api/login: 401 for an unknown e-mail', unknown, 401);
  const wrongText = isObject(trimmed.body) ? trimmed.body.error : undefined;
  const unknownText = isObject(unknown.body) ? unknown.body.error : undefined;
  report.that('POST /api/login: the same error text for an unknown e-mail and a wrong password', wrongText !== undefined && wrongText === unknownText, show(wrongText), show(unknownText));
  const issued = [trimmed, unknown].flatMap((r) => r.cookies).filter((c) => c.name === COOKIE && c.value !== '');
  report.that('POST /api/login: no session for a failed login', issued.length === 0, 'no sl_session token', show(issued.map((c) => redact(c.raw))));

  const loggedInB = await post({ email: b.email, password: b.password });
  expectUser(report, 'POST /api/login: 200 for the account at the upper bounds (its 200-character password as sent)', loggedInB, 200, b);
  const sessionB = loggedInB.cookies.find((c) => c.name === COOKIE)?.value;
  if (sessionB) report.secrets.add(sessionB);

  // Body rules, on login, whose budget is the largest.
  const raw = (name: string, body: string | Uint8Array, status = 400, contentType?: string) =>
    client.send('/api/login', { raw: body, contentType, from }).then((reply) => expectError(report, name, reply, status));
  await raw('POST /api/login: 400 for malformed JSON', '{"email": "bb@example.com", "password": ');
  await raw('POST /api/login: 400 for a JSON array', JSON.stringify([a.email, a.password]));
  await raw('POST /api/login: 400 for a JSON string', JSON.stringify(a.email));
  await raw('POST /api/login: 400 for JSON null', 'null');
  // 10 KB that JSON.parse reads without trouble; a host that re-serialised it by recursion answered 500.
  await raw('POST /api/login: 400 for a JSON array nested 5,000 deep', `${'['.repeat(5_000)}${']'.repeat(5_000)}`);
  expectError(report, 'POST /api/login: 400 for a missing field (password)', await post({ email: a.email }), 400);
  expectError(report, 'POST /api/login: 400 for a field of the wrong type', await post({ email: a.email, password: 12345678 }), 400);
  const big = JSON.stringify({ email: a.email, password: a.password, padding: 'x'.repeat(BODY_LIMIT) });
  await raw(`POST /api/login: 413 for a body over 64 KiB (${big.length} bytes)`, big, 413);
  await raw('POST /api/login: 400 for a body that is not UTF-8', Buffer.concat([Buffer.from(`{"email":"${a.email}","password":"`), Buffer.from([0xff, 0xfe, 0x80]), Buffer.from('"}')]));
  expectError(report, 'POST /api/login: 400 for U+0000 in a field', await post({ email: `bb.nul.${run}@example.com`, password: 'pass\u0000word' }), 400);
  await raw('POST /api/login: 400 for an unpaired surrogate in a field', `{"email":"bb.sur.${run}@example.com","password":"pass\\ud800word"}`);
  await raw('POST /api/login: 400 for a body that is not JSON (text/plain)', JSON.stringify({ email: a.email, password: a.password }), 400, 'text/plain');
  await raw('POST /api/login: 400 for a body that is not JSON (form)', `email=${encodeURIComponent(a.email)}&password=x`, 400, 'application/x-www-form-urlencoded');
  expectError(report, 'POST /api/login: 403 for a cross-site browser request', await post({ email: a.email, password: a.password }, { headers: { 'sec-fetch-site': 'cross-site' } }), 403);
}

async function sessions(ctx: Context): Promise<void> {
  const { client, report, a } = ctx;
  const from = ctx.from.session;
  const me = (session?: string) => client.send('/api/me', { session, from });
  const logout = (session?: string) => client.send('/api/logout', { method: 'POST', session, from });

  expectError(report, 'GET /api/me: 401 without a cookie', await me(), 401);
  const bogus = randomBytes(32).toString('base64url');
  const unknown = await me(bogus);
  if (expectError(report, 'GET /api/me: 401 for an unknown session', unknown, 401)) {
    expectClearedCookie(report, client, 'GET /api/me: the 401 clears the cookie', unknown);
  }
  const noSession = await logout();
  if (expectError(report, 'POST /api/logout: 401 without a session', noSession, 401)) {
    expectClearedCookie(report, client, 'POST /api/logout: the 401 clears the cookie anyway', noSession);
  }

  if (!a?.session) {
    report.fail('POST /api/logout: a session to end', 'the session from the login checks', 'none: login failed');
    return;
  }
  const out = await logout(a.session);
  if (expectOk(report, 'POST /api/logout: 200 Ok', out)) expectClearedCookie(report, client, 'POST /api/logout: clears the cookie', out);
  expectError(report, 'GET /api/me: 401 after logout (the session is ended, not only the cookie)', await me(a.session), 401);
  const again = await logout(a.session);
  if (expectError(report, 'POST /api/logout: 401 with an ended session', again, 401)) {
    expectClearedCookie(report, client, 'POST /api/logout: the 401 for an ended session clears the cookie', again);
  }
}

async function contact(ctx: Context): Promise<void> {
  const { client, report } = ctx;
  const from = ctx.from.contact;
  const post = (json: unknown) => client.send('/api/contact', { json, from });
  // The upper bounds, in the one message the budget allows to be stored.
  const full = { name: `  C${'n'.repeat(119)} `, email: emailOfLength(200, 'c'), message: `Black-box spec run ${run}. ${'m'.repeat(5000)}`.slice(0, 5000) };
  const sent = await post(full);
  expectOk(report, 'POST /api/contact: 200 Ok at the upper bounds (name 120, e-mail 200, message 5000 characters)', sent);
  const first = expectRateLimitHeaders(report, 'POST /api/contact: RateLimit-Policy and RateLimit headers', sent, 'contact');
  if (ctx.options.trustProxy && first) {
    report.that('POST /api/contact: the first message from a new address leaves 4 of 5', first.remaining === LIMITS.contact.limit - 1, `r=${LIMITS.contact.limit - 1}`, `r=${first.remaining}`);
  }
  expectError(report, 'POST /api/contact: 400 for a message of 9 characters', await post({ ...full, message: 'too short' }), 400);
  expectError(report, 'POST /api/contact: 400 for a message of 5001 characters', await post({ ...full, message: 'm'.repeat(5001) }), 400);
  expectError(report, 'POST /api/contact: 400 for a name of 121 characters', await post({ ...full, name: 'n'.repeat(121) }), 400);
  expectError(report, 'POST /api/contact: 400 for a body that is not JSON', await client.send('/api/contact', { raw: JSON.stringify(full), contentType: 'text/plain', from }), 400);
}

async function discovery(ctx: Context): Promise<void> {
  const { client, report } = ctx;
  const from = ctx.from.general;
  const base = client.base;
  const within = (href: unknown): boolean => typeof href === 'string' && (href === base || href.startsWith(`${base}/`));

  const openapi = await client.send('/openapi.json', { from });
  const doc = isObject(openapi.body) ? openapi.body : {};
  const info = isObject(doc.info) ? doc.info : {};
  const servers = Array.isArray(doc.servers) ? doc.servers : [];
  const paths = isObject(doc.paths) ? doc.paths : {};
  const server = isObject(servers[0]) ? servers[0].url : undefined;
  const operations: [string, string][] = [['get', '/api/health'], ['post', '/api/signup'], ['post', '/api/login'], ['post', '/api/logout'], ['get', '/api/me'], ['post', '/api/contact']];
  report.all('GET /openapi.json: OpenAPI 3.1.0, info.version 1.0.0, servers at the base, the six operations', [
    [openapi.status === 200 && isJsonType(openapi), 'status 200 with a JSON content type', `${openapi.status} ${show(openapi.headers.get('content-type'))}`],
    [doc.openapi === '3.1.0', 'openapi "3.1.0"', show(doc.openapi)],
    [info.version === '1.0.0', 'info.version "1.0.0"', show(info.version)],
    [typeof server === 'string' && server.replace(/\/+$/, '') === base, `servers[0].url ${base}`, show(server)],
    [operations.every(([m, p]) => isObject(paths[p]) && isObject(paths[p][m])), operations.map(([m, p]) => `${m.toUpperCase()} ${p}`).join(', '), show(Object.keys(paths))],
    [!Object.keys(paths).some((p) => /\/v\d+(\/|$)/i.test(p)), 'no version segment in paths', show(Object.keys(paths))],
  ]);

  const catalog = await client.send('/.well-known/api-catalog', { from });
  const linkset = isObject(catalog.body) && Array.isArray(catalog.body.linkset) ? catalog.body.linkset : [];
  const hrefs: unknown[] = [];
  const anchors: unknown[] = [];
  for (const context of linkset) {
    if (!isObject(context)) continue;
    anchors.push(context.anchor);
    for (const [rel, targets] of Object.entries(context)) {
      if (rel !== 'anchor' && Array.isArray(targets)) for (const t of targets) hrefs.push(isObject(t) ? t.href : t);
    }
  }
  const serviceDesc = linkset.flatMap((c) => (isObject(c) && Array.isArray(c['service-desc']) ? c['service-desc'] : [])).map((t: unknown) => (isObject(t) ? t.href : t));
  report.all('GET /.well-known/api-catalog: RFC 9727 linkset whose links point into the base', [
    [catalog.status === 200, 'status 200', statusOf(catalog)],
    [/^application\/linkset\+json\b/i.test(catalog.headers.get('content-type') ?? ''), 'Content-Type application/linkset+json', show(catalog.headers.get('content-type'))],
    [linkset.length > 0 && hrefs.length > 0, '{ linkset: [ { anchor, <rel>: [ { href } ] } ] }', show(catalog.text)],
    [anchors.every(within), `every anchor within ${base}`, show(anchors)],
    [hrefs.every(within), `every href within ${base}`, show(hrefs)],
    [serviceDesc.includes(client.url('/openapi.json')), `a service-desc link to ${client.url('/openapi.json')}`, show(serviceDesc)],
  ]);
  for (const href of new Set(hrefs.filter(within) as string[])) {
    const target = await client.fetch(href, { from });
    report.that(`api-catalog link ${href}: 200`, target.status === 200, 'status 200', statusOf(target));
  }
  const head = await client.send('/.well-known/api-catalog', { method: 'HEAD', from });
  report.that('HEAD /.well-known/api-catalog: 200', head.status === 200, 'status 200', String(head.status));

  const auth = await client.send('/auth.md', { from });
  report.all('GET /auth.md: a Markdown guide naming the sl_session cookie', [
    [auth.status === 200, 'status 200', statusOf(auth)],
    [/^text\/markdown\b/i.test(auth.headers.get('content-type') ?? ''), 'Content-Type text/markdown', show(auth.headers.get('content-type'))],
    [auth.text.includes(COOKIE), `a text mentioning ${COOKIE}`, show(auth.text)],
  ]);

  const skills = await client.send('/.well-known/agent-skills/index.json', { from });
  const list = isObject(skills.body) && Array.isArray(skills.body.skills) ? skills.body.skills.filter(isObject) : [];
  report.all('GET /.well-known/agent-skills/index.json: an index of skills within the base', [
    [skills.status === 200 && isJsonType(skills), 'status 200 with a JSON content type', `${skills.status} ${show(skills.headers.get('content-type'))}`],
    [list.length > 0 && list.every((s) => typeof s.name === 'string' && typeof s.url === 'string' && typeof s.digest === 'string'), '{ skills: [ { name, url, digest } ] }', show(skills.text)],
    [list.every((s) => within(s.url)), `every url within ${base}`, show(list.map((s) => s.url))],
  ]);
  for (const skill of list) {
    if (typeof skill.url !== 'string' || !within(skill.url)) continue;
    const res = await fetch(skill.url, { signal: AbortSignal.timeout(ctx.options.timeoutMs) });
    const bytes = Buffer.from(await res.arrayBuffer());
    const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    report.all(`agent skill ${show(skill.name)}: 200 with the digest of its bytes`, [
      [res.status === 200, 'status 200', String(res.status)],
      [digest === skill.digest, show(skill.digest), digest],
    ]);
  }

  const cardReply = await client.send('/.well-known/mcp/server-card.json', { from });
  const card = isObject(cardReply.body) ? cardReply.body : {};
  const remotes = Array.isArray(card.remotes) ? card.remotes.filter(isObject) : [];
  const remote = remotes.find((r) => r.type === 'streamable-http');
  report.all('GET /.well-known/mcp/server-card.json: a card whose endpoint is base + /mcp', [
    [cardReply.status === 200 && isJsonType(cardReply), 'status 200 with a JSON content type', `${cardReply.status} ${show(cardReply.headers.get('content-type'))}`],
    [remote?.url === client.url('/mcp'), `a streamable-http remote at ${client.url('/mcp')}`, show(card.remotes)],
  ]);
  await mcp(ctx, remote);

  if (ctx.options.noDocsPage) {
    // Without the page, no document may send a reader to one.
    const serviceDoc = linkset.flatMap((c) => (isObject(c) && Array.isArray(c['service-doc']) ? c['service-doc'] : []));
    const index = await client.fetch(client.base, { from, headers: { accept: 'application/json' } });
    const links = isObject(index.body) && isObject(index.body.links) ? index.body.links : {};
    report.all('without a docs page: neither the API catalog nor GET / links one', [
      [serviceDoc.length === 0, 'no service-doc link in the catalog', show(serviceDoc)],
      [index.status === 200 && !('docs' in links), 'GET / (JSON) without a docs link', `${index.status} ${show(links)}`],
    ]);
    return;
  }

  const page = await client.send('/docs/api', { from, headers: { accept: 'text/html' } });
  report.all('GET /docs/api: an HTML page', [
    [page.status === 200, 'status 200', `${page.status}`],
    [/^text\/html\b/i.test(page.headers.get('content-type') ?? ''), 'Content-Type text/html', show(page.headers.get('content-type'))],
  ]);
  const scripts = [...page.text.matchAll(/<script\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi)].map((m) => new URL(m[1]!, page.url).href);
  report.that('GET /docs/api: loads its scripts from within the base', scripts.length > 0 && scripts.every(within), `script URLs within ${base}`, show(scripts));
  // Where the page finds the OpenAPI document: an attribute of the page or a setting in its own script.
  let specUrl: string | undefined;
  const inPage = /["']([^"'\s]*openapi\.json)["']/i.exec(page.text);
  if (inPage) specUrl = new URL(inPage[1]!, page.url).href;
  for (const src of scripts) {
    const script = await client.fetch(src, { from });
    report.all(`docs script ${new URL(src).pathname}: 200 JavaScript`, [
      [script.status === 200, 'status 200', `${script.status}`],
      [/javascript/i.test(script.headers.get('content-type') ?? ''), 'a JavaScript content type', show(script.headers.get('content-type'))],
    ]);
    const found = specUrl ? null : /["']([^"'\s]*openapi\.json)["']/i.exec(script.text);
    if (found) specUrl = new URL(found[1]!, page.url).href;
  }
  if (!specUrl) {
    report.fail('GET /docs/api: names the OpenAPI document', 'a URL ending in openapi.json in the page or its scripts', 'none');
    return;
  }
  const spec = await client.fetch(specUrl, { from });
  report.that(`GET /docs/api: its OpenAPI URL ${specUrl} answers the document`, specUrl === client.url('/openapi.json') && spec.status === 200 && isObject(spec.body) && spec.body.openapi === '3.1.0', `200 OpenAPI 3.1.0 at ${client.url('/openapi.json')}`, `${spec.status} at ${specUrl}`);
}

/** The JSON-RPC message of an MCP answer, sent as JSON or as server-sent events. */
function rpcMessage(reply: Reply): Json | undefined {
  if (isObject(reply.body)) return reply.body;
  const data = reply.text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim());
  for (const line of data) {
    try {
      const message: unknown = JSON.parse(line);
      if (isObject(message) && ('result' in message || 'error' in message)) return message;
    } catch {
      // not JSON: keep looking
    }
  }
  return undefined;
}

/**
 * Speaks to /mcp as a client of each revision the card declares: the 2025 revisions open with an
 * initialize handshake, later ones (stateless) carry the revision in every request's `_meta`.
 */
async function mcp(ctx: Context, remote: Json | undefined): Promise<void> {
  const { client, report } = ctx;
  const from = ctx.from.general;
  const endpoint = client.url('/mcp');
  const versions = remote?.supportedProtocolVersions;
  const declared = Array.isArray(versions) ? versions.filter((v): v is string => typeof v === 'string') : [];
  if (declared.length === 0) {
    report.fail('MCP server card: declares its protocol revisions', 'remotes[].supportedProtocolVersions', show(remote));
    return;
  }
  const headers = (extra: Record<string, string> = {}) => ({ accept: 'application/json, text/event-stream', ...extra });
  const clientInfo = { name: 'sl-spec-run', version: '1.0.0' };
  const deep = await client.fetch(endpoint, { raw: `${'['.repeat(5_000)}${']'.repeat(5_000)}`, contentType: 'application/json', headers: headers(), from });
  report.that('POST /mcp: 400 for a JSON array nested 5,000 deep', deep.status === 400, '400', `${deep.status} ${show(deep.text)}`);
  for (const version of declared) {
    const stateless = version >= '2026-01-01';
    let extra: Record<string, string> = { 'mcp-protocol-version': version };
    let params: Json = {};
    if (stateless) {
      params = { _meta: { 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientInfo': clientInfo, 'io.modelcontextprotocol/clientCapabilities': {} } };
      const reply = await client.fetch(endpoint, { json: { jsonrpc: '2.0', id: 1, method: 'server/discover', params }, headers: headers({ ...extra, 'mcp-method': 'server/discover' }), from });
      const result = rpcMessage(reply)?.result;
      const supported = isObject(result) && Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
      report.that(`POST /mcp ${version}: server/discover lists the revision`, reply.status === 200 && supported.includes(version), `200 with supportedVersions including ${version}`, `${reply.status} ${show(reply.text)}`);
      extra = { ...extra, 'mcp-method': 'tools/list' };
    } else {
      const reply = await client.fetch(endpoint, {
        json: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo } },
        headers: headers(),
        from,
      });
      const result = rpcMessage(reply)?.result;
      const ok = report.that(
        `POST /mcp ${version}: initialize agrees on the revision`,
        reply.status === 200 && isObject(result) && result.protocolVersion === version && isObject(result.serverInfo),
        `200 with protocolVersion ${version} and serverInfo`,
        `${reply.status} ${show(reply.text)}`,
      );
      if (!ok) continue;
      const session = reply.headers.get('mcp-session-id');
      if (session) extra = { ...extra, 'mcp-session-id': session };
      await client.fetch(endpoint, { json: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers: headers(extra), from });
    }
    const listed = await client.fetch(endpoint, { json: { jsonrpc: '2.0', id: 2, method: 'tools/list', params }, headers: headers(extra), from });
    const result = rpcMessage(listed)?.result;
    const tools = isObject(result) && Array.isArray(result.tools) ? result.tools : [];
    report.that(
      `POST /mcp ${version}: tools/list answers JSON-RPC with tools`,
      listed.status === 200 && tools.length > 0 && tools.every((t) => isObject(t) && typeof t.name === 'string' && isObject(t.inputSchema)),
      '200 with result.tools: [{ name, inputSchema }]',
      `${listed.status} ${show(listed.text)}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// Rate limits (--limits)

/** A body every limited operation refuses with 400 but counts: no hashing, nothing stored. */
const COUNTED_INVALID = {};

async function exhaust(ctx: Context, op: Operation, from: string): Promise<void> {
  const { client, report } = ctx;
  const { limit, window } = LIMITS[op];
  const path = `/api/${op}`;
  const replies: Reply[] = [];
  for (let i = 0; i <= limit; i++) {
    const reply = await client.send(path, { json: COUNTED_INVALID, from });
    replies.push(reply);
    if (reply.status === 429) break;
  }
  const first = replies[0]!;
  const refused = replies.at(-1)!;
  const state = rateLimitOf(first, op);
  const allowed = replies.length - 1;
  if (first.status === 429) {
    report.fail(`${path} limit: a counted request before the 429`, 'the address to have budget left', statusOf(first));
  } else if (state) {
    // r is what the first of these left over: exactly r more get through, the next is refused.
    const expected = ctx.options.trustProxy ? limit : state.remaining + 1;
    report.that(`POST ${path}: 429 after ${expected} request${expected === 1 ? '' : 's'}${ctx.options.trustProxy ? ` (${limit} per ${window} s from a new address)` : ''}`, refused.status === 429 && allowed === expected, `${expected} answered, then 429`, `${allowed} answered, then ${refused.status}`);
  } else {
    report.fail(`POST ${path}: RateLimit headers to count by`, 'RateLimit-Policy and RateLimit', show(first.headers.get('ratelimit')));
  }
  if (refused.status !== 429) return;
  expectError(report, `POST ${path}: the 429 is an ErrorResponse`, refused, 429);
  const retry = refused.headers.get('retry-after') ?? '';
  const refusedState = rateLimitOf(refused, op);
  report.all(`POST ${path}: the 429 has Retry-After, whole seconds >= 1, and RateLimit r=0`, [
    [/^\d+$/.test(retry) && Number(retry) >= 1 && Number(retry) <= window, `Retry-After an integer in 1..${window}`, show(retry || null)],
    [refusedState?.remaining === 0, 'RateLimit r=0', show(refused.headers.get('ratelimit'))],
  ]);
  if (ctx.options.trustProxy) {
    const other = await client.send(path, { json: COUNTED_INVALID, from: fakeAddress() });
    report.that(`POST ${path}: another client address is not limited`, other.status === 400, 'status 400 (counted, not refused)', statusOf(other));
    if (op === 'signup') {
      const sibling = sameNetwork(from);
      const shared = await client.send(path, { json: COUNTED_INVALID, from: sibling });
      report.that(`POST ${path}: another address of the same IPv6 /56 shares the limit (${from}, ${sibling})`, shared.status === 429, 'status 429', statusOf(shared));
    }
  }
}

async function limits(ctx: Context): Promise<void> {
  const own = (op: Operation) => (op === 'signup' ? ctx.from.signup : op === 'login' ? ctx.from.login : ctx.from.contact);
  for (const op of ['signup', 'login', 'contact'] as const) await exhaust(ctx, op, ctx.options.trustProxy ? fakeAddress() : own(op));
  if (!ctx.options.trustProxy) return;

  // Failed logins per account, whether it exists or not: from as many addresses as it takes.
  const { client, report } = ctx;
  const email = `bb.locked.${run}@example.com`;
  const statuses: number[] = [];
  for (let i = 0; i < FAILED_LOGINS_PER_ACCOUNT; i++) {
    statuses.push((await client.send('/api/login', { json: { email, password: `wrong password ${i}` }, from: fakeAddress() })).status);
  }
  const last = await client.send('/api/login', { json: { email, password: 'wrong password again' }, from: fakeAddress() });
  report.that(
    `POST /api/login: ${FAILED_LOGINS_PER_ACCOUNT} failed logins for one e-mail from different addresses, then 429`,
    statuses.every((s) => s === 401) && last.status === 429 && /^\d+$/.test(last.headers.get('retry-after') ?? ''),
    `${FAILED_LOGINS_PER_ACCOUNT} x 401, then 429 with Retry-After`,
    `${show(statuses.join(' '))}, then ${last.status} (Retry-After ${show(last.headers.get('retry-after'))})`,
  );
}

// ---------------------------------------------------------------------------------------------------
// What holds for every reply

/** Each holds over every answer the run received, so a run that received none fails them too. */
function everyReply(ctx: Context): void {
  const { client, report } = ctx;
  const api = report.replies.filter((r) => new URL(r.url).pathname.startsWith(`${client.basePath}/api/`));
  const cached = api.filter((r) => !/\bno-store\b/i.test(r.headers.get('cache-control') ?? ''));
  report.that(`Cache-Control: no-store on every /api/* response (${api.length})`, api.length > 0 && cached.length === 0, 'no-store', few(cached.map((r) => `${r.method} ${r.url} ${r.status}: ${show(r.headers.get('cache-control'))}`)));

  // The service's own answers only: a host's pages outside the base, and /mcp's JSON-RPC errors, have their own shapes.
  const errors = report.replies.filter((r) => r.status >= 400 && r.method !== 'HEAD' && r.url.startsWith(`${client.base}/`) && !r.url.startsWith(client.url('/mcp')));
  // `issues`, where a 400 carries it, lists what was wrong: [{ path, message }].
  const issuesOk = (body: Json) => body.issues === undefined || (Array.isArray(body.issues) && body.issues.every((i) => isObject(i) && typeof i.path === 'string' && typeof i.message === 'string'));
  const bad = errors.filter((r) => !(isJsonType(r) && isObject(r.body) && r.body.ok === false && typeof r.body.error === 'string' && issuesOk(r.body)));
  report.that(`every error body is { ok: false, error: string[, issues: [{ path, message }]] } as JSON (${errors.length})`, errors.length > 0 && bad.length === 0, 'ErrorResponse', few(bad.map((r) => `${r.method} ${r.url} ${r.status}: ${show(r.text)}`)));

  const leaks = report.replies.filter((r) => [...report.secrets].some((s) => s.length >= 8 && r.text.includes(s)));
  report.that(`no response body carries a password or session token (${report.replies.length})`, report.replies.length > 0 && leaks.length === 0, 'none', few(leaks.map((r) => `${r.method} ${r.url}`)));
}

// ---------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof UsageError || error instanceof TypeError ? `${error.message}\n\n${usage}` : error);
    return 2;
  }
  const report = new Report(!options.json);
  const client = new Client(options, report);
  const ctx: Context = {
    client,
    report,
    options,
    from: { general: fakeAddress(), signup: fakeAddress(), login: fakeAddress(), session: fakeAddress(), contact: fakeAddress() },
  };
  const groups: [string, (ctx: Context) => Promise<void>][] = [
    ['health', health],
    ['routing', routing],
    ['signup', signup],
    ['login', login],
    ['sessions', sessions],
    ['contact', contact],
    ['discovery', discovery],
    ...(options.limits ? [['limits', limits] as [string, (ctx: Context) => Promise<void>]] : []),
  ];
  for (const [name, group] of groups) {
    try {
      await group(ctx);
    } catch (error) {
      report.fail(`${name}: the checks ran to the end`, 'no error', error instanceof Error ? `${error.name}: ${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}` : String(error));
    }
  }
  everyReply(ctx);

  const failed = report.checks.filter((c) => !c.ok).length;
  const passed = report.checks.length - failed;
  if (options.json) {
    const spent = Object.fromEntries(report.spent);
    console.log(JSON.stringify({ base: options.base, run, trustProxy: options.trustProxy, limits: options.limits, passed, failed, spent, checks: report.checks }, null, 2));
  } else {
    console.log(`${passed} passed, ${failed} failed`);
  }
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main();
