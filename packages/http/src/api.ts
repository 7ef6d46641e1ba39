/**
 * The HTTP contract as one function of a request: `createHttpApi(...).handle(request)` answers every
 * API operation, document, unknown path and wrong method the same way in any host. A host adapter
 * only copies the request in and the answer out (and bridges /mcp, which speaks web streams).
 */
import { Unauthenticated, countedLimits, isDomainError, type Accounts, type User } from '@sl-accounts/core';
import { originHeaders, requestOrigin } from './base-url.ts';
import { hostBodyError } from './body.ts';
import { HttpError, STATUS_BY_CODE, answerForThrown, errorResponse } from './errors.ts';
import { refuseForeignRequest } from './cross-site.ts';
import { JSON_TYPE, requestPath, type HttpAnswer, type HttpRequest } from './http-types.ts';
import { logRequest, requestIdOf, silentLogger, type Logger } from './logger.ts';
import { OperationRequest } from './operation-request.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import type { DocumentRoute } from './document-route.ts';
import { API_ROUTES, type ApiRoute } from './routes.ts';

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
   * `@sl-accounts/discovery` (`discoveryDocuments`), the docs page and the MCP server card among them.
   * None by default: the contract alone serves the API.
   */
  readonly documents?: readonly DocumentRoute[];
  /**
   * The path the service is mounted under (`BASE_PATH`, e.g. `/accounts`); '' or absent for the root.
   * Hosts pass the request target as received (`originalUrl`); every link and document points into it.
   */
  readonly basePath?: string;
}

/** The HTTP contract over the use cases, as one function of a request (see `createHttpApi`). */
export interface HttpApi {
  /** Answers one request. Never throws: failures are answers (500 with the details in the log). */
  handle(request: HttpRequest): Promise<HttpAnswer>;
  /** Every path it serves (operations and documents) below `basePath`, e.g. to route or count by. */
  readonly paths: readonly string[];
  /**
   * What a host routes to the service at the root, in the usual router syntax: each document's path
   * and `/api/*`, the API's whole namespace (an unknown path in it gets the contract's JSON 404, and
   * `/api/sessions/{id}` is in it). Under a base path, route the whole prefix instead.
   */
  readonly mountPaths: readonly string[];
  /** The mount path, normalised: '' for the root, else `/accounts` (no trailing slash). */
  readonly basePath: string;
  /**
   * Whether a request target is the service's: at the root, one under `/api/` or a document's path; under a base path,
   * every path inside it (the contract answers 404 for those it does not serve), and the
   * `/.well-known/` documents at the origin's root (RFC 8615), whose links point into it. Hosts that
   * route by hand let everything else fall through to their own routes.
   */
  owns(url: string): boolean;
  /**
   * The session of this request: its user, or `null` without a valid `sl_session` cookie. A store that
   * does not answer throws an HttpError with `status` 503 and `expose` (its `cause` the core's
   * StoreUnavailable), which Koa's, Express's and Fastify's error handlers answer as a 503. For a
   * host's own routes.
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
/** Methods a route may be asked with at all; others are 501, as no route could ever take them. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

interface PathEntry {
  readonly operations: Map<string, ApiRoute>;
  document?: DocumentRoute;
  /** `Allow` for this path, e.g. `HEAD, GET`. */
  allow: string;
}

export function createHttpApi(options: HttpApiOptions): HttpApi {
  const { accounts, logger = silentLogger, trustProxy = 0, publicUrl } = options;
  const basePath = normaliseBasePath(options.basePath);

  const paths = new Map<string, PathEntry>();
  const entry = (path: string) => {
    let found = paths.get(path);
    if (!found) paths.set(path, (found = { operations: new Map(), allow: '' }));
    return found;
  };
  for (const route of API_ROUTES) {
    // Browsers send POSTs from other sites' pages: such an operation must be guarded.
    if (route.method !== 'GET' && !route.changesState) throw new Error(`${route.method} ${route.path} must declare changesState`);
    entry(route.path).operations.set(route.method, route);
  }
  // Paths with `{name}` segments, tried in table order after an exact match failed.
  const templates = [...paths.keys()].filter((p) => p.includes('{')).map((template) => ({ template, ...pathPattern(template) }));
  for (const document of options.documents ?? []) entry(document.path).document = document;
  for (const found of paths.values()) {
    const methods = found.document ? ['GET'] : [...found.operations.keys()];
    found.allow = methods.flatMap((m) => (m === 'GET' ? ['HEAD', 'GET'] : [m])).join(', ');
  }

  /** The request's own origin, checked; invalid forwarded headers are logged and ignored. */
  function originOf(request: HttpRequest, reqId: string): string | null {
    const { origin, ignored } = requestOrigin(request, trustProxy);
    if (ignored.length > 0) logger.warn({ reqId, ignored }, 'ignored invalid forwarded headers; using the connection’s own view');
    return origin;
  }

  /** An operation's answer, complete: its headers are written once, in the order `finish` gives. */
  async function runOperation(found: PathEntry, route: ApiRoute, request: HttpRequest, reqId: string, params: Record<string, string>): Promise<HttpAnswer> {
    const operationRequest = new OperationRequest(request, trustProxy, logger, params);
    try {
      // Refused before anything is counted, read or set: a foreign page must neither spend its
      // visitors' limits nor act with their session.
      if (route.changesState) refuseForeignRequest(request, route.requestBody !== undefined, () => publicUrl ?? originOf(request, reqId));
      // A body the host's parser refused was never the service's to read: answered, not counted.
      if (route.requestBody && request.hostBody && 'failed' in request.hostBody) throw hostBodyError(request.hostBody.failed);
      const result = await route.run(accounts, operationRequest);
      const body = JSON.stringify(result.body);
      const headers: Record<string, string | string[]> = { ...commonFor(found, result.status), 'x-request-id': reqId, 'content-type': JSON_TYPE };
      // The quota the request left, on every answer of a limited operation, errors included.
      if (result.limits) Object.assign(headers, rateLimitHeaders(result.limits));
      if (result.setCookie) headers['set-cookie'] = typeof result.setCookie === 'string' ? result.setCookie : [...result.setCookie];
      headers['content-length'] = String(Buffer.byteLength(body));
      return { status: result.status, headers, body };
    } catch (error) {
      const answer = answerForThrown(error, logger, reqId);
      const headers = { ...answer.headers, ...rateLimitHeaders(countedLimits(error)) };
      return finish({ ...answer, headers }, commonFor(found, answer.status), reqId);
    }
  }

  async function serveDocument(found: PathEntry, document: DocumentRoute, request: HttpRequest, reqId: string): Promise<HttpAnswer> {
    // A document written from the request's origin varies with the headers that origin came from,
    // so no shared cache hands one client's Host to another; a Host that is not a host is refused.
    const varies: Record<string, string> = document.usesBase && !publicUrl ? { vary: originHeaders(trustProxy) } : {};
    let answer: HttpAnswer;
    try {
      const origin = publicUrl ?? (document.usesBase ? originOf(request, reqId) : 'http://localhost');
      if (origin === null) {
        answer = errorResponse(400, 'The Host header is missing or not a valid host', varies);
      } else {
        const rendered = await document.render(request, origin + basePath);
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

  /** The entry of a path, exact or by a template, with the template's segments. */
  const NOT_FOUND = { found: undefined, params: {} } as const;
  /** The API's namespace: every path in it is the service's, so unknown ones get its JSON 404. */
  const API_PREFIX = '/api/';

  function lookup(path: string): { found: PathEntry | undefined; params: Record<string, string> } {
    const exact = paths.get(path);
    if (exact) return { found: exact, params: {} };
    for (const { template, pattern, names } of templates) {
      const match = pattern.exec(path);
      if (!match) continue;
      const params: Record<string, string> = {};
      try {
        names.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1]!)));
      } catch {
        // A malformed percent-escape (bytes that are not UTF-8 among them) names no resource.
        return { found: undefined, params: {} };
      }
      // Nor does a segment that decodes to U+0000 (`%00`), which no id holds and no database text takes.
      if (Object.values(params).some((value) => value.includes('\0'))) return { found: undefined, params: {} };
      return { found: paths.get(template), params };
    }
    return { found: undefined, params: {} };
  }

  function route(found: PathEntry | undefined, request: HttpRequest, reqId: string, params: Record<string, string> = {}): Promise<HttpAnswer> | HttpAnswer {
    if (!found) return finish(errorResponse(404, 'Not found'), NOT_CACHED, reqId);
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (found.document && method === 'GET') return serveDocument(found, found.document, request, reqId);
    const operation = found.operations.get(method);
    if (operation) return runOperation(found, operation, request, reqId, params);
    let answer: HttpAnswer;
    if (request.method === 'OPTIONS') answer = found.document?.cors ? preflight(request) : { status: 204, headers: { allow: found.allow }, body: null };
    else if (!KNOWN_METHODS.has(request.method)) answer = errorResponse(501, 'Method not implemented');
    else answer = errorResponse(405, `Method not allowed; use ${found.allow}`, { allow: found.allow });
    return finish(answer, commonFor(found, answer.status), reqId);
  }

  /** The path below `basePath` of a request path, or `null` when it is not under it. */
  const localPath = (path: string): string | null => {
    if (basePath === '') return path;
    if (path.startsWith(basePath)) {
      if (path.length === basePath.length) return '/';
      if (path.charCodeAt(basePath.length) === 47 /* '/' */) return path.slice(basePath.length);
    }
    return path.startsWith('/.well-known/') ? path : null;
  };

  const answerErrorFor = (error: unknown, request: Pick<HttpRequest, 'headers'>): HttpAnswer => {
    const reqId = requestIdOf(request, trustProxy);
    return finish(answerForThrown(error, logger, reqId), NOT_CACHED, reqId);
  };

  return {
    async handle(request) {
      const start = performance.now();
      const reqId = requestIdOf(request, trustProxy);
      const path = requestPath(request.url);
      const local = localPath(path);
      const { found, params } = local === null ? NOT_FOUND : lookup(local);
      const answer = await route(found, request, reqId, params);
      logRequest(logger, reqId, request.method, path, answer.status, start);
      return answer;
    },
    paths: [...paths.keys()],
    mountPaths: [...[...paths.keys()].filter((p) => !p.startsWith(API_PREFIX)), `${API_PREFIX}*`],
    basePath,
    owns(url) {
      const path = requestPath(url);
      const local = localPath(path);
      if (local === null) return false;
      if (basePath !== '' && local !== path) return true;
      return local.startsWith(API_PREFIX) || lookup(local).found !== undefined;
    },
    async session(request) {
      const sessionToken = new OperationRequest({ method: 'GET', url: '/', headers: request.headers, remoteAddress: undefined, body: null }, trustProxy).sessionToken();
      if (sessionToken === null) return null;
      try {
        return await accounts.me({ sessionToken });
      } catch (error) {
        if (error instanceof Unauthenticated) return null;
        throw isDomainError(error) ? Object.assign(new HttpError(STATUS_BY_CODE[error.code], error.message), { cause: error }) : error;
      }
    },
    answerError: answerErrorFor,
    unauthenticated: (request) => answerErrorFor(new Unauthenticated(), request),
  };
}

/** A matcher for a path with `{name}` segments: each matches one non-empty segment. */
export function pathPattern(template: string): { readonly pattern: RegExp; readonly names: readonly string[] } {
  const names: string[] = [];
  const source = template
    .split('/')
    .map((segment) => {
      const name = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (name === undefined) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), names };
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
  if (body !== null) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  return { ...answer, headers };
}

/** CORS preflight for a public document: any origin, read-only methods. */
function preflight(request: HttpRequest): HttpAnswer {
  const asked = request.headers['access-control-request-headers'];
  return {
    status: 204,
    headers: {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD, OPTIONS',
      'access-control-allow-headers': (typeof asked === 'string' && asked) || 'Accept',
      'access-control-max-age': '86400',
    },
    body: null,
  };
}

