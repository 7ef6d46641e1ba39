/**
 * The operator's API (issue 43, docs/decisions/0058-operator-api-and-cli.md) on its own listener, as
 * the metrics are: `ADMIN_PORT` (off by default) on `ADMIN_HOST` (loopback by default). Bearer
 * tokens from `ADMIN_TOKENS` (`name:token` pairs, each token at least 32 bytes), compared in constant
 * time; a missing or wrong token is 401, and more than ADMIN_FAILURES_PER_MINUTE of them from one
 * address are 429 for the rest of the minute. Each route is a thin adapter over one of core's
 * operator use cases (`createAdmin`), which record the operator's name with every change.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ACTIVITY_TYPES, isDomainError, MAX_REASON_LENGTH, type AdminUseCases, type OperatorMeta } from '@sl-accounts/service/core';
import { STATUS_BY_CODE } from '@sl-accounts/service/http';

/** Where the operator's API listens and who may call it. */
export interface AdminConfig {
  readonly port: number;
  readonly host: string;
  /** Operators by name; each token at least MIN_ADMIN_TOKEN_BYTES bytes. */
  readonly tokens: readonly AdminToken[];
}

export interface AdminToken {
  readonly name: string;
  readonly token: string;
}

/** The shortest token `ADMIN_TOKENS` accepts, in bytes (UTF-8): 32, as `openssl rand -base64 32` gives 44 characters. */
export const MIN_ADMIN_TOKEN_BYTES = 32;
/** Wrong or missing tokens one address may send per minute before it gets 429 until the minute ends. */
export const ADMIN_FAILURES_PER_MINUTE = 10;
/** An operator's name, as ADMIN_TOKENS and `pnpm admin --operator` take it: recorded in events. */
export const OPERATOR_NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** The largest body the operator's API reads. */
const MAX_BODY_BYTES = 16 * 1024;

/**
 * `ADMIN_TOKENS` as pairs: `name:token`, separated by commas or white space. Throws an Error naming
 * what is wrong (never the token itself).
 */
export function parseAdminTokens(text: string): readonly AdminToken[] {
  const pairs = text.split(/[\s,]+/).filter(Boolean);
  if (pairs.length === 0) throw new Error('ADMIN_TOKENS: give at least one name:token pair');
  const seen = new Set<string>();
  const owners = new Map<string, string>();
  return pairs.map((pair, i) => {
    const at = pair.indexOf(':');
    const name = at < 0 ? '' : pair.slice(0, at);
    const token = at < 0 ? '' : pair.slice(at + 1);
    if (!OPERATOR_NAME.test(name)) throw new Error(`ADMIN_TOKENS: pair ${i + 1} must be name:token, the name 1 to 64 of A-Z a-z 0-9 . _ -`);
    if (Buffer.byteLength(token) < MIN_ADMIN_TOKEN_BYTES) throw new Error(`ADMIN_TOKENS: the token of ${name} must be at least ${MIN_ADMIN_TOKEN_BYTES} bytes (openssl rand -base64 32)`);
    if (seen.has(name)) throw new Error(`ADMIN_TOKENS: ${name} is named twice`);
    // One token under two names: every action would be recorded under the last of them.
    const holder = owners.get(token);
    if (holder !== undefined) throw new Error(`ADMIN_TOKENS: ${name} has the same token as ${holder}; give each operator their own`);
    seen.add(name);
    owners.set(token, name);
    return { name, token };
  });
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * The operator a bearer token names, or `null`. Every configured token is compared, each in
 * constant time over SHA-256 digests (equal lengths whatever was sent), so the time tells nothing
 * of which token, or how much of one, matched.
 */
export function operatorOf(tokens: readonly AdminToken[], authorization: string | undefined): string | null {
  const presented = /^Bearer ([^\s]+)$/i.exec(authorization ?? '')?.[1];
  const sent = digest(presented ?? '');
  let found: string | null = null;
  for (const { name, token } of tokens) {
    if (timingSafeEqual(sent, digest(token)) && presented !== undefined) found = name;
  }
  return found;
}

/** The API's own OpenAPI document, at `/admin/openapi.json`. */
export function adminOpenApi(): object {
  const error = { $ref: '#/components/schemas/ErrorResponse' };
  const json = (schema: object, description: string) => ({ description, content: { 'application/json': { schema } } });
  const errors = {
    '400': json(error, 'Bad input: an id, cursor, type or reason out of bounds (`validation`).'),
    '401': json(error, 'No valid admin token (`unauthenticated`).'),
    '404': json(error, 'No such account (`not_found`).'),
    '429': json(error, `More than ${ADMIN_FAILURES_PER_MINUTE} bad tokens from this address in a minute (\`rate_limited\`).`),
  };
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[1-9][0-9]*$' }, description: 'The account id.' };
  const cursor = { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'The `nextCursor` of the page before.' };
  const reason = (required: boolean) => ({
    required,
    content: { 'application/json': { schema: { type: 'object', ...(required ? { required: ['reason'] } : {}), properties: { reason: { type: 'string', minLength: required ? 1 : 0, maxLength: MAX_REASON_LENGTH, description: 'Why: recorded in the activity log with the operator’s name.' } } } } },
  });
  const ok = json({ type: 'object', properties: { ok: { const: true } }, required: ['ok'], additionalProperties: true }, 'Done.');
  const op = (operationId: string, summary: string, extra: object = {}) => ({ operationId, summary, security: [{ adminToken: [] }], responses: { '200': ok, ...errors }, ...extra });
  return {
    openapi: '3.1.0',
    info: { title: 'sl-accounts operator API', version: '1.0.0', summary: 'Find, lock and unlock accounts, end their sessions, mail a reset link, remove second factors, delete, export, read the activity log.' },
    components: {
      securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'A token of ADMIN_TOKENS; its name is recorded as the operator.' } },
      schemas: {
        ErrorResponse: { type: 'object', required: ['ok', 'error', 'code'], properties: { ok: { const: false }, error: { type: 'string' }, code: { type: 'string' }, issues: { type: 'array' } } },
      },
    },
    paths: {
      '/admin/accounts': { get: op('findAccounts', 'Find accounts by the start of their address', { parameters: [{ name: 'email', in: 'query', required: false, schema: { type: 'string' }, description: 'The start of the address (any case); absent: every account.' }, cursor] }) },
      '/admin/accounts/{id}': {
        get: op('showAccount', 'The account: profile, factors, sessions, last events', { parameters: [id] }),
        delete: op('deleteAccount', 'Delete the account (its owner is mailed a notice)', { parameters: [id], requestBody: reason(true) }),
      },
      '/admin/accounts/{id}/lock': { post: op('lockAccount', 'Lock: no sign-in by any method, every session ends', { parameters: [id], requestBody: reason(true) }) },
      '/admin/accounts/{id}/unlock': { post: op('unlockAccount', 'Unlock', { parameters: [id], requestBody: reason(false) }) },
      '/admin/accounts/{id}/sessions': { delete: op('endSessions', 'End every session', { parameters: [id], requestBody: reason(false) }) },
      '/admin/accounts/{id}/password-reset': { post: op('sendPasswordReset', 'Mail the owner a reset link', { parameters: [id], requestBody: reason(false) }) },
      '/admin/accounts/{id}/second-factors': { delete: op('removeSecondFactors', 'Remove TOTP, recovery codes and passkeys (the owner is mailed a notice)', { parameters: [id], requestBody: reason(true) }) },
      '/admin/accounts/{id}/export': { get: op('exportAccount', 'Everything stored about the account', { parameters: [id] }) },
      '/admin/activity': {
        get: op('listActivity', 'Every account’s events, newest first', { parameters: [cursor, { name: 'type', in: 'query', required: false, schema: { type: 'string', enum: [...ACTIVITY_TYPES] } }] }),
      },
    },
  };
}

/** A JSON answer. */
function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(text)), ...headers }).end(text);
}

const fail = (res: ServerResponse, status: number, code: string, error: string, headers: Record<string, string> = {}, issues?: unknown) =>
  send(res, status, issues ? { ok: false, error, code, issues } : { ok: false, error, code }, headers);

/** The body as JSON (`{}` when there is none); a ValidationError-shaped 400 for anything else. */
async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BadBody(`The body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadBody('The body is not JSON');
  }
}

class BadBody extends Error {}

/** Failed authentications per address in the current minute. */
class FailureWindow {
  readonly #counts = new Map<string, number>();
  #windowStart = 0;
  /** Counts one failure of `address`; whether it is over the bound. */
  fail(address: string, now: number): boolean {
    this.#roll(now);
    const count = (this.#counts.get(address) ?? 0) + 1;
    this.#counts.set(address, count);
    return count > ADMIN_FAILURES_PER_MINUTE;
  }
  /** Whether `address` is over the bound now. */
  blocked(address: string, now: number): boolean {
    this.#roll(now);
    return (this.#counts.get(address) ?? 0) >= ADMIN_FAILURES_PER_MINUTE;
  }
  /** Seconds until the window ends. */
  retryAfter(now: number): number {
    return Math.max(1, Math.ceil((this.#windowStart + 60_000 - now) / 1000));
  }
  #roll(now: number) {
    if (now - this.#windowStart >= 60_000) {
      this.#windowStart = now;
      this.#counts.clear();
    }
  }
}

/** One route: method, path pattern, and what it runs. */
type Handler = (admin: AdminUseCases, match: RegExpExecArray, query: URLSearchParams, body: () => Promise<unknown>, meta: OperatorMeta) => Promise<unknown>;
const ROUTES: readonly (readonly [method: string, path: RegExp, handler: Handler])[] = [
  ['GET', /^\/admin\/accounts$/, (admin, _m, query) => admin.findAccounts(query.get('email'), query.get('cursor'))],
  ['GET', /^\/admin\/accounts\/([^/]+)$/, (admin, m) => admin.showAccount(m[1]!)],
  ['DELETE', /^\/admin\/accounts\/([^/]+)$/, async (admin, m, _q, body, meta) => (await admin.deleteAccount(m[1]!, await body(), meta), {})],
  ['POST', /^\/admin\/accounts\/([^/]+)\/lock$/, async (admin, m, _q, body, meta) => admin.lockAccount(m[1]!, await body(), meta)],
  ['POST', /^\/admin\/accounts\/([^/]+)\/unlock$/, async (admin, m, _q, body, meta) => admin.unlockAccount(m[1]!, await body(), meta)],
  ['DELETE', /^\/admin\/accounts\/([^/]+)\/sessions$/, async (admin, m, _q, body, meta) => admin.endSessions(m[1]!, await body(), meta)],
  ['POST', /^\/admin\/accounts\/([^/]+)\/password-reset$/, async (admin, m, _q, body, meta) => admin.sendPasswordReset(m[1]!, await body(), meta)],
  ['DELETE', /^\/admin\/accounts\/([^/]+)\/second-factors$/, async (admin, m, _q, body, meta) => admin.removeSecondFactors(m[1]!, await body(), meta)],
  ['GET', /^\/admin\/accounts\/([^/]+)\/export$/, async (admin, m, _q, _b, meta) => ({ export: await admin.exportAccount(m[1]!, meta) })],
  ['GET', /^\/admin\/activity$/, (admin, _m, query) => admin.listActivity(query.get('cursor'), query.get('type'))],
];

/** What the listener logs through. */
export interface AdminLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The request handler of the operator's API (no socket): for `listenAdmin`, and for tests. */
export function adminHandler(admin: AdminUseCases, tokens: readonly AdminToken[], logger: AdminLogger, now: () => number = Date.now) {
  const failures = new FailureWindow();
  const openapi = JSON.stringify(adminOpenApi());
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // A request target that is no URL (`GET http://[x/ HTTP/1.1`) reaches here too: a 400, not a throw.
    const url = URL.parse(req.url ?? '/', 'http://admin.invalid');
    if (url === null) return fail(res, 400, 'validation', 'Invalid request: the request target is not a URL');
    const address = req.socket.remoteAddress ?? 'unknown';
    if (req.method === 'GET' && url.pathname === '/admin/openapi.json') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(openapi);
      return;
    }
    if (failures.blocked(address, now())) {
      const wait = failures.retryAfter(now());
      fail(res, 429, 'rate_limited', `Too many requests; try again in ${wait} seconds`, { 'retry-after': String(wait) });
      return;
    }
    const operator = operatorOf(tokens, req.headers.authorization);
    if (operator === null) {
      failures.fail(address, now());
      fail(res, 401, 'unauthenticated', 'A valid admin token is needed: Authorization: Bearer <token>', { 'www-authenticate': 'Bearer realm="admin"' });
      return;
    }
    const matching = ROUTES.filter(([, path]) => path.test(url.pathname));
    if (matching.length === 0) return fail(res, 404, 'not_found', 'No such operation; the operations are at /admin/openapi.json');
    const chosen = matching.find(([method]) => method === req.method);
    if (!chosen) return fail(res, 405, 'method_not_allowed', `Method ${req.method} is not allowed here`, { allow: matching.map(([method]) => method).join(', ') });
    const meta: OperatorMeta = { operator, clientIp: address, userAgent: req.headers['user-agent'] ?? null };
    try {
      const result = await chosen[2](admin, chosen[1].exec(url.pathname)!, url.searchParams, () => readBody(req), meta);
      logger.info({ operator, method: req.method, path: url.pathname }, 'admin operation');
      send(res, 200, { ok: true, ...(result as object) });
    } catch (error) {
      if (error instanceof BadBody) return fail(res, 400, 'validation', `Invalid request: ${error.message}`);
      if (isDomainError(error)) {
        const issues = error.code === 'validation' ? error.issues : undefined;
        return fail(res, STATUS_BY_CODE[error.code], error.code, error.message, {}, issues);
      }
      logger.error({ err: error, operator, path: url.pathname }, 'admin operation failed');
      fail(res, 500, 'internal_error', 'Internal server error');
    }
  };
}

/** Starts the operator's API; resolves with its URL and a stop. */
export async function listenAdmin(admin: AdminUseCases, config: AdminConfig, logger: AdminLogger): Promise<{ readonly url: string; close(): Promise<void> }> {
  const handle = adminHandler(admin, config.tokens, logger);
  // The handler answers every failure itself; should one escape, it is a 500 here, never an
  // unhandled rejection that would end the process (and the public API with it).
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'admin request failed');
      if (!res.headersSent) fail(res, 500, 'internal_error', 'Internal server error');
      else res.destroy();
    });
  });
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}/admin`,
    async close() {
      if (!server.listening) return;
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
