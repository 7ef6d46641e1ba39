/**
 * The HTTP contract as one function of a request: `createHttpApi(...).handle(request)` answers every
 * API operation, document, `/mcp` request, unknown path and wrong method the same way in any host. A
 * host adapter only copies the request in and the answer out.
 */
import { Unauthenticated, countedLimits, isDomainError, type Accounts, type User } from '@sl-accounts/service/core';
import { isVerified, type AuthorizeOptions, type Authorization } from './authorize.ts';
import { baseUrlOf, originHeaders, requestOrigin } from './base-url.ts';
import { hostBodyError } from './body.ts';
import { clientAddress } from './client-address.ts';
import { HttpError, STATUS_BY_CODE, answerForThrown, errorResponse } from './errors.ts';
import { refuseForeignRequest } from './cross-site.ts';
import { JSON_TYPE, headerValue, isStreamBody, requestPath, type HttpAnswer, type HttpRequest } from './http-types.ts';
import { logRequest, requestIdOf, silentLogger, type Logger } from './logger.ts';
import type { McpHandler } from './mcp-handler.ts';
import { OperationRequest, sessionTokenIn } from './operation-request.ts';
import { pathTable, type PathEntry, type PathTable } from './path-table.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import type { DocumentRoute } from './document-route.ts';
import { DEFAULT_BODY_TIMEOUT_MS, fetchHandler, type FetchHandler } from './fetch.ts';
import { API_ROUTES, type ApiRoute } from './routes/index.ts';
import { withRequestBase } from './request-base.ts';

export { pathPattern } from './path-table.ts';

/** What `createHttpApi` serves and how: the use cases, and where the service is mounted and reached. */
export interface HttpApiOptions {
  readonly accounts: Accounts;
  readonly logger?: Logger;
  /** Trusted proxy hops in front of the server; 0 (the default) ignores X-Forwarded-* headers. */
  readonly trustProxy?: number;
  /**
   * The service's absolute URL (`PUBLIC_URL`): the origin that state-changing requests must come
   * from and the base of the documents; else each request's own origin.
   */
  readonly publicUrl?: string | undefined;
  /**
   * Documents to serve beside the operations, with GET and HEAD: the discovery documents of
   * `@sl-accounts/service/discovery` (`discoveryDocuments`), the docs page and the MCP server card among them.
   * As a function of the base path, they follow the service wherever a host mounts it (see
   * `HttpRequest.mountPath`); as a list, they are served as they are under every mount. None by
   * default: the contract alone serves the API.
   */
  readonly documents?: readonly DocumentRoute[] | ((basePath: string) => readonly DocumentRoute[]);
  /** The MCP endpoint (`createMcpEndpoint` of `@sl-accounts/service/mcp`), served at `<base>/mcp` for every method. None by default. */
  readonly mcp?: McpHandler | undefined;
  /**
   * The path the service is mounted under (`BASE_PATH`, e.g. `/accounts`); '' or absent for the root.
   * Hosts pass the request target as received (`originalUrl`); every link and document points into it.
   */
  readonly basePath?: string;
  /**
   * How long a request body may take to arrive through `fetch`, from its first read: then 408
   * `request_timeout`. Default 30 s (`pnpm start`'s REQUEST_TIMEOUT_MS); 0: no bound. Node hosts
   * bound the whole request with node:http's own `requestTimeout` instead.
   */
  readonly bodyTimeoutMs?: number;
  /** What `HttpApi.settled` awaits: the composer's background work (`createService`'s: reset requests, the mail outbox). */
  readonly settled?: () => Promise<void>;
  /** Where `fetch`'s one warning about a missing `clientAddress` goes; default `logger` at warn. */
  readonly warn?: (message: string) => void;
}

/** The HTTP contract over the use cases, as one function of a request (see `createHttpApi`). */
export interface HttpApi {
  /** Answers one request. Never throws: failures are answers (500 with the details in the log). */
  handle(request: HttpRequest): Promise<HttpAnswer>;
  /**
   * Answers one web-standard `Request` (Bun, Deno, Next.js, Hono on any runtime): `handle` with the
   * request copied in and the answer copied out, so every rule is the same. The host passes the
   * peer's address (`clientAddress`, the socket peer's part: `trustProxy` applies as on node) and,
   * when its router serves the service under a prefix, that prefix (`mountPath`). Never throws.
   */
  readonly fetch: FetchHandler;
  /** Every path it serves (operations, documents, `/mcp`) below `basePath`, e.g. to route or count by. */
  readonly paths: readonly string[];
  /**
   * What a host routes to the service at the root, in the usual router syntax: each document's path,
   * `/mcp` and `/api/*`, the API's whole namespace (an unknown path in it gets the contract's JSON 404,
   * and `/api/sessions/{id}` is in it). Under a base path, route the whole prefix instead.
   */
  readonly mountPaths: readonly string[];
  /** The mount path, normalised: '' for the root, else `/accounts` (no trailing slash). */
  readonly basePath: string;
  /**
   * Whether a request target is the service's: at the root, one under `/api/` or one of its paths;
   * under a base path (`basePath`, after `mountPath` when a host's router mounted it under one),
   * every path inside it (the contract answers 404 for those it does not serve), and the
   * `/.well-known/` documents at the origin's root (RFC 8615), whose links point into it. Hosts
   * that route by hand let everything else fall through to their own routes.
   */
  owns(url: string, mountPath?: string): boolean;
  /**
   * Whether the service has something at a request target: an operation, a document or `/mcp` (any
   * method). What `owns` claims beyond these gets the contract's 404; a host may let its own routes
   * try such a path first.
   */
  serves(url: string, mountPath?: string): boolean;
  /**
   * The guard of a host's own routes, behind every adapter's `requireSession(service, options)`: the
   * user of the request's `sl_session` cookie, or the answer to send instead: the spec's 401 (cookie
   * cleared) without a valid session, 403 when `options` asks more of the user than it has, 503 when
   * the store does not answer. Never throws.
   */
  authorize(request: Pick<HttpRequest, 'headers'>, options?: AuthorizeOptions): Promise<Authorization>;
  /**
   * The session of this request: its user, or `null` without a valid `sl_session` cookie. A store that
   * does not answer throws an HttpError with `status` 503 and `expose` (its `cause` the core's
   * StoreUnavailable), which Koa's, Express's and Fastify's error handlers answer as a 503. For a
   * host's own routes (`authorize` gives the answers instead).
   */
  session(request: Pick<HttpRequest, 'headers'>): Promise<User | null>;
  /**
   * The contract's ErrorResponse for an error a host met on the service's behalf: a domain error by
   * its code (Unauthenticated: the spec's 401, cookie cleared), a transport error by its status,
   * anything else a logged 500 (a host parser's failure on the service's path goes to `handle` as
   * `hostBody: { failed }` instead). With the request id and `Cache-Control: no-store`.
   */
  answerError(error: unknown, request: Pick<HttpRequest, 'headers'>): HttpAnswer;
  /** The spec's 401 for a host route that needs a session and got none. */
  unauthenticated(request: Pick<HttpRequest, 'headers'>): HttpAnswer;
  /**
   * Resolves once the work that the answers so far started is done: with `createService`, reset
   * requests written and every mail then due handed to the mailer (not waiting for the outbox's
   * next poll). For tests: `request` of the testing entry awaits it after each answer.
   */
  readonly settled?: () => Promise<void>;
}

/**
 * What every host adapter takes (`accounts(service)`, `requireSession(service)`): the composed
 * service of `@sl-accounts/service` fits, and so does `{ api }` for a contract composed by hand.
 */
export interface HttpService {
  readonly api: HttpApi;
}

/** `/accounts/` and `accounts` are `/accounts`; `/` is ''. Refuses what is not a plain path. */
export function normaliseBasePath(basePath: string | undefined): string {
  const trimmed = (basePath ?? '').replace(/\/+$/, '');
  if (trimmed === '') return '';
  const path = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  if (!/^(\/[A-Za-z0-9._~!$&'()*+,;=:@-]+)+$/.test(path) || path.split('/').some((s) => s === '.' || s === '..')) {
    throw new Error(`BASE_PATH must be a path such as /accounts, not ${JSON.stringify(basePath)}`);
  }
  return path;
}

/** Every answer but a document's: API answers are personal, and 404s and 405s are not worth keeping. */
const NOT_CACHED = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
const DOCUMENT = { 'x-content-type-options': 'nosniff' };
/** `/mcp`'s answers carry the SDK's own caching headers. */
const MCP = DOCUMENT;
/** Methods a route may be asked with at all; others are 501, as no route could ever take them. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** The API's namespace: every path in it is the service's, so unknown ones get its JSON 404. */
const API_PREFIX = '/api/';
/**
 * How many mount prefixes keep a table of their own at once. A router's prefix is written in the
 * host's code, so there are a few at most; one with a parameter (`/:tenant`) could make one per
 * request, and this bounds the memory that takes (the least recently built goes first).
 */
const MAX_MOUNTS = 32;
const NO_PARAMS: Record<string, string> = {};

/** The contract as one function of a request: `api.handle(request)` answers any request; a host mounts `api`. */
export function createHttpApi(options: HttpApiOptions): HttpApi {
  const { accounts, logger = silentLogger, trustProxy = 0, publicUrl, mcp } = options;
  const basePath = normaliseBasePath(options.basePath);
  for (const route of API_ROUTES) {
    // Browsers send POSTs from other sites' pages: such an operation must be guarded.
    if (route.method !== 'GET' && !route.changesState) throw new Error(`${route.method} ${route.path} must declare changesState`);
  }
  const documentsAt = (base: string) => (typeof options.documents === 'function' ? options.documents(base) : (options.documents ?? []));
  const root = pathTable(basePath, documentsAt(basePath), mcp !== undefined);
  const mounted = new Map<string, PathTable>();

  /** The table for a host's mount prefix: the prefix, then the service's own base path. */
  function tableFor(mountPath: string | undefined): PathTable {
    if (!mountPath || mountPath === '/') return root;
    const base = joinMount(mountPath, basePath);
    let table = mounted.get(base);
    if (table) return table;
    if (mounted.size >= MAX_MOUNTS) mounted.delete(mounted.keys().next().value!);
    mounted.set(base, (table = pathTable(base, documentsAt(base), mcp !== undefined)));
    return table;
  }

  /** The request's own origin, checked; invalid forwarded headers are logged and ignored. */
  function originOf(request: HttpRequest, reqId: string): string | null {
    const { origin, ignored } = requestOrigin(request, trustProxy);
    if (ignored.length > 0) logger.warn({ reqId, ignored }, 'ignored invalid forwarded headers; using the connection’s own view');
    return origin;
  }

  /** An operation's answer, complete: its headers are written once, in the order `finish` gives. */
  async function runOperation(found: PathEntry, route: ApiRoute, request: HttpRequest, reqId: string, params: Record<string, string>, base: string, mounted: boolean): Promise<HttpAnswer> {
    const operationRequest = new OperationRequest(request, trustProxy, logger, params, base, publicUrl);
    try {
      // Refused before anything is counted, read or set: a foreign page must neither spend its
      // visitors' limits nor act with their session.
      if (route.changesState) refuseForeignRequest(request, route.requestBody !== undefined, () => publicUrl ?? originOf(request, reqId));
      // A body the host's parser refused was never the service's to read: answered, not counted.
      if (route.requestBody && request.hostBody && 'failed' in request.hostBody) throw hostBodyError(request.hostBody.failed);
      // Under a host's mount, the links this operation mails follow it (see request-base.ts); the root pays nothing.
      const result = await (mounted ? withRequestBase(base, () => route.run(accounts, operationRequest)) : route.run(accounts, operationRequest));
      const body = JSON.stringify(result.body);
      const headers: Record<string, string | string[]> = { ...commonFor(found, result.status), 'x-request-id': reqId, 'content-type': JSON_TYPE };
      // The quota the request left, on every answer of a limited operation, errors included.
      if (result.limits) Object.assign(headers, rateLimitHeaders(result.limits));
      if (result.headers) Object.assign(headers, result.headers);
      if (result.setCookie) headers['set-cookie'] = typeof result.setCookie === 'string' ? result.setCookie : [...result.setCookie];
      headers['content-length'] = String(Buffer.byteLength(body));
      return { status: result.status, headers, body };
    } catch (error) {
      const answer = answerForThrown(error, logger, reqId);
      const headers = { ...answer.headers, ...rateLimitHeaders(countedLimits(error)) };
      return finish({ ...answer, headers }, commonFor(found, answer.status), reqId);
    }
  }

  async function serveDocument(found: PathEntry, document: DocumentRoute, request: HttpRequest, reqId: string, base: string): Promise<HttpAnswer> {
    // A document written from the request's origin varies with the headers that origin came from,
    // so no shared cache hands one client's Host to another; a Host that is not a host is refused.
    const varies: Record<string, string> = document.usesBase && !publicUrl ? { vary: originHeaders(trustProxy) } : {};
    let answer: HttpAnswer;
    try {
      const origin = publicUrl ?? (document.usesBase ? originOf(request, reqId) : 'http://localhost');
      if (origin === null) {
        answer = errorResponse(400, 'invalid_host', 'The Host header is missing or not a valid host', varies);
      } else {
        const rendered = await document.render(request, origin + base);
        // ETag is not a CORS-safelisted header: without the exposure a page could not revalidate.
        const cors: Record<string, string> = document.cors ? { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag' } : {};
        const vary = [rendered.headers.vary, varies.vary].filter(Boolean).join(', ');
        answer = { ...rendered, headers: { ...rendered.headers, ...cors, ...(vary ? { vary } : {}) } };
      }
    } catch (error) {
      answer = answerForThrown(error, logger, reqId);
    }
    return finish(answer, commonFor(found, answer.status), reqId);
  }

  /** `/mcp`, any method, to the endpoint, with the request id, client address and base URL the API would use. */
  async function serveMcp(endpoint: McpHandler, request: HttpRequest, reqId: string, base: string): Promise<HttpAnswer> {
    let answer: HttpAnswer;
    try {
      const context = { requestId: reqId, clientIp: clientAddress(request, trustProxy, logger), baseUrl: baseUrlOf(request, publicUrl, trustProxy) + base };
      answer = await endpoint.handle(request, context);
    } catch (error) {
      answer = answerForThrown(error, logger, reqId);
    }
    return finish(answer, MCP, reqId);
  }

  function route(table: PathTable, found: PathEntry | undefined, request: HttpRequest, reqId: string, params: Record<string, string>): Promise<HttpAnswer> | HttpAnswer {
    if (!found) return finish(errorResponse(404, 'unknown_path', 'Not found'), NOT_CACHED, reqId);
    if (found.mcp && mcp) return serveMcp(mcp, request, reqId, table.base);
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (found.document && method === 'GET') return serveDocument(found, found.document, request, reqId, table.base);
    const operation = found.operations.get(method);
    if (operation) return runOperation(found, operation, request, reqId, params, table.base, table !== root);
    let answer: HttpAnswer;
    // One shape on every path (the MCP endpoint answers its own alike): 204, `Allow`, and for a public document a CORS grant.
    if (request.method === 'OPTIONS') answer = { status: 204, headers: { allow: found.allow, ...(found.document?.cors ? preflight(request) : {}) }, body: null };
    else if (!KNOWN_METHODS.has(request.method)) answer = errorResponse(501, 'method_not_implemented', 'Method not implemented');
    else answer = errorResponse(405, 'method_not_allowed', `Method not allowed; use ${found.allow}`, { allow: found.allow });
    return finish(answer, commonFor(found, answer.status), reqId);
  }

  const answerErrorFor = (error: unknown, request: Pick<HttpRequest, 'headers'>): HttpAnswer => {
    const reqId = requestIdOf(request, trustProxy);
    return finish(answerForThrown(error, logger, reqId), NOT_CACHED, reqId);
  };

  const sessionTokenOf = (request: Pick<HttpRequest, 'headers'>) => sessionTokenIn(headerValue(request.headers, 'cookie'));

  const paths = [...root.entries.keys()];
  const handle = async (request: HttpRequest): Promise<HttpAnswer> => {
    const start = performance.now();
    const reqId = requestIdOf(request, trustProxy);
    const path = requestPath(request.url);
    const table = tableFor(request.mountPath);
    const local = table.localPath(path);
    const { found, params } = local === null ? { found: undefined, params: NO_PARAMS } : table.lookup(local);
    const answer = await route(table, found, request, reqId, params);
    logRequest(logger, reqId, request.method, path, answer.status, start);
    return answer;
  };
  return {
    handle,
    ...(options.settled ? { settled: options.settled } : {}),
    fetch: fetchHandler(handle, { bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS, warn: options.warn ?? ((message) => logger.warn({}, message)) }),
    paths,
    mountPaths: [...paths.filter((p) => !p.startsWith(API_PREFIX)), `${API_PREFIX}*`],
    basePath,
    owns(url, mountPath) {
      const table = tableFor(mountPath);
      const path = requestPath(url);
      const local = table.localPath(path);
      if (local === null) return false;
      if (table.base !== '' && local !== path) return true;
      return local.startsWith(API_PREFIX) || table.lookup(local).found !== undefined;
    },
    serves(url, mountPath) {
      const table = tableFor(mountPath);
      const local = table.localPath(requestPath(url));
      return local !== null && table.lookup(local).found !== undefined;
    },
    async authorize(request, authorizeOptions = {}) {
      const sessionToken = sessionTokenOf(request);
      try {
        if (sessionToken === null) throw new Unauthenticated();
        const user = await accounts.me({ sessionToken });
        if (authorizeOptions.verified && !isVerified(user)) {
          return { answer: finish(errorResponse(403, 'email_not_verified', 'The e-mail address of this account is not verified'), NOT_CACHED, requestIdOf(request, trustProxy)) };
        }
        return { user };
      } catch (error) {
        return { answer: answerErrorFor(error, request) };
      }
    },
    async session(request) {
      const sessionToken = sessionTokenOf(request);
      if (sessionToken === null) return null;
      try {
        return await accounts.me({ sessionToken });
      } catch (error) {
        if (error instanceof Unauthenticated) return null;
        throw isDomainError(error) ? Object.assign(new HttpError(STATUS_BY_CODE[error.code], error.message, error.code), { cause: error }) : error;
      }
    },
    answerError: answerErrorFor,
    unauthenticated: (request) => answerErrorFor(new Unauthenticated(), request),
  };
}

/**
 * A host's mount prefix, then the service's base path: `/v1` and `/accounts` make `/v1/accounts`.
 * A router hands its prefix as it matched it; only a trailing slash is dropped.
 */
function joinMount(mountPath: string, basePath: string): string {
  const mount = mountPath.replace(/\/+$/, '');
  return (mount.startsWith('/') ? mount : `/${mount}`) + basePath;
}

/** Successful answers on a document's path may be cached; everything else is personal or not worth keeping. */
function commonFor(found: PathEntry, status: number): Record<string, string> {
  return found.document && status < 400 ? DOCUMENT : NOT_CACHED;
}

/**
 * An answer with the headers every answer carries, in the order every host writes them: the common
 * ones, the request id, the answer's own, and the length (so every host frames it alike, and HEAD
 * answers carry it too).
 */
function finish(answer: HttpAnswer, common: Record<string, string>, reqId: string): HttpAnswer {
  const { body } = answer;
  const headers: Record<string, string | string[]> = { ...common, 'x-request-id': reqId, ...answer.headers };
  // A stream's length is not known ahead: it goes out chunked.
  if (body !== null && !isStreamBody(body)) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  return { ...answer, headers };
}

/** The CORS preflight grant of a public document: any origin, read-only methods. */
function preflight(request: HttpRequest): Record<string, string> {
  const asked = request.headers['access-control-request-headers'];
  return {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    'access-control-allow-headers': (typeof asked === 'string' && asked) || 'Accept',
    'access-control-max-age': '86400',
  };
}

