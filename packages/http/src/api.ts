/**
 * The HTTP contract as one function of a request: `createHttpApi(...).handle(request)` answers every
 * API operation, document, unknown path and wrong method the same way in any host. A host adapter
 * only copies the request in and the answer out (and bridges /mcp, which speaks web streams).
 */
import { DEFAULT_SERVICE_NAME, type Accounts } from '@sl/core';
import { answerError, errorAnswer } from './errors.ts';
import { Exchange } from './exchange.ts';
import { refuseForeignRequest } from './cross-site.ts';
import { JSON_TYPE, requestPath, type HttpAnswer, type HttpRequest } from './http-types.ts';
import { logRequest, requestIdOf, silentLogger, type Logger } from './logger.ts';
import { API_ROUTES, type ApiRoute } from './routes.ts';
import { originHeaders, requestOrigin } from './discovery/base-url.ts';
import { withValidators } from './discovery/caching.ts';
import { discoveryDocuments, type DocumentRoute } from './discovery/documents.ts';

export interface HttpApiOptions {
  readonly accounts: Accounts;
  readonly logger?: Logger;
  /** Trusted proxy hops in front of the server; 0 (the default) ignores X-Forwarded-* headers. */
  readonly trustProxy?: number;
  /** The absolute base URL for documents (`PUBLIC_URL`); else each request's own origin. */
  readonly publicUrl?: string | undefined;
  readonly serviceName?: string;
  /** Further documents to serve beside the discovery resources (the MCP server card). */
  readonly documents?: readonly DocumentRoute[];
}

export interface HttpApi {
  /** Answers one request. Never throws: failures are answers (500 with the details in the log). */
  handle(request: HttpRequest): Promise<HttpAnswer>;
  /** Every path it serves (operations and documents), e.g. to count requests by route. */
  readonly paths: readonly string[];
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
  const serviceName = options.serviceName ?? DEFAULT_SERVICE_NAME;

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
  for (const document of discoveryDocuments({ publicUrl, serviceName, extra: options.documents })) entry(document.path).document = document;
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
    const exchange = new Exchange(request, trustProxy, logger, params);
    try {
      // Refused before anything is counted, read or set: a foreign page must neither spend its
      // visitors' limits nor act with their session.
      if (route.changesState) refuseForeignRequest(request, route.requestBody !== undefined, () => publicUrl ?? originOf(request, reqId));
      const result = await route.run(accounts, exchange);
      const body = JSON.stringify(result.body);
      const headers: Record<string, string | string[]> = { ...commonFor(found, result.status), 'x-request-id': reqId, 'content-type': JSON_TYPE };
      exchange.addHeaders(headers);
      if (result.setCookie) headers['set-cookie'] = typeof result.setCookie === 'string' ? result.setCookie : [...result.setCookie];
      headers['content-length'] = String(Buffer.byteLength(body));
      return { status: result.status, headers, body };
    } catch (error) {
      const answer = answerError(error, logger, reqId);
      const headers = { ...answer.headers };
      exchange.addHeaders(headers);
      return finish({ ...answer, headers }, commonFor(found, answer.status), reqId);
    }
  }

  async function serveDocument(found: PathEntry, document: DocumentRoute, request: HttpRequest, reqId: string): Promise<HttpAnswer> {
    // A document written from the request's origin varies with the headers that origin came from,
    // so no shared cache hands one client's Host to another; a Host that is not a host is refused.
    const varies: Record<string, string> = document.usesBase && !publicUrl ? { vary: originHeaders(trustProxy) } : {};
    let answer: HttpAnswer;
    try {
      const base = publicUrl ?? (document.usesBase ? originOf(request, reqId) : 'http://localhost');
      if (base === null) {
        answer = errorAnswer(400, 'The Host header is missing or not a valid host', varies);
      } else {
        const rendered = await document.render(request, base);
        // ETag is not a CORS-safelisted header: without the exposure a page could not revalidate.
        const cors: Record<string, string> = document.cors ? { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag' } : {};
        const vary = [rendered.headers.vary, varies.vary].filter(Boolean).join(', ');
        answer = withValidators(request, { ...rendered, headers: { ...rendered.headers, ...cors, ...(vary ? { vary } : {}) } });
      }
    } catch (error) {
      answer = answerError(error, logger, reqId);
    }
    return finish(answer, commonFor(found, answer.status), reqId);
  }

  /** The entry of a path, exact or by a template, with the template's segments. */
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
        // A malformed percent-escape names no resource.
        return { found: undefined, params: {} };
      }
      return { found: paths.get(template), params };
    }
    return { found: undefined, params: {} };
  }

  function route(found: PathEntry | undefined, request: HttpRequest, reqId: string, params: Record<string, string> = {}): Promise<HttpAnswer> | HttpAnswer {
    if (!found) return finish(errorAnswer(404, 'Not found'), NOT_CACHED, reqId);
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (found.document && method === 'GET') return serveDocument(found, found.document, request, reqId);
    const operation = found.operations.get(method);
    if (operation) return runOperation(found, operation, request, reqId, params);
    let answer: HttpAnswer;
    if (request.method === 'OPTIONS') answer = found.document?.cors ? preflight(request) : { status: 204, headers: { allow: found.allow }, body: null };
    else if (!KNOWN_METHODS.has(request.method)) answer = errorAnswer(501, 'Method not implemented');
    else answer = errorAnswer(405, `Method not allowed; use ${found.allow}`, { allow: found.allow });
    return finish(answer, commonFor(found, answer.status), reqId);
  }

  return {
    async handle(request) {
      const start = performance.now();
      const reqId = requestIdOf(request, trustProxy);
      const path = requestPath(request.url);
      const { found, params } = lookup(path);
      const answer = await route(found, request, reqId, params);
      logRequest(logger, reqId, request.method, path, answer.status, start);
      return answer;
    },
    paths: [...paths.keys()],
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

