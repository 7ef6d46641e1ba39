/**
 * `pnpm test:unit`'s host (TEST_IN_PROCESS=1): each test server is the service as `pnpm start`
 * composes it from its configuration (`configureService` of `@sl-accounts/server`: store, hasher,
 * limits, documents, `/mcp`), with no socket, and the suites' `fetch` calls to its URL are
 * handed to `service.api.handle` through `request` of `@sl-accounts/service/http/testing`, the entry an
 * embedder's own tests use. No server, no connection, no parser between the suite and the contract:
 * hundreds of cases take seconds.
 *
 * The hosts (Koa, node:http, the examples) are `pnpm test`'s: it runs the same suites over real sockets.
 */
import type { Server } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { request } from '@sl-accounts/service/http/testing';
import { configureService, type Config, type RunningServer, type ServerOverrides } from '@sl-accounts/server';

/** Whether this run answers test servers in-process (`pnpm test:unit` sets it). */
export const IN_PROCESS = process.env.TEST_IN_PROCESS === '1';

/** A request as the suites' fetch made it: lower-case headers, the body's bytes. */
export interface InProcessRequest {
  readonly method: string;
  /** Path and query. */
  readonly target: string;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array | null;
}

/** Answers one request to a test server, as its host would have on the wire. */
type Answerer = (request: InProcessRequest) => Promise<Response>;

const servers = new Map<string, Answerer>();
/** Each server gets a URL of its own; nothing listens there (the unit run refuses every socket). */
let nextPort = 40_000;

/** The service the configuration composes, answering fetch calls to its URL in-process until it closes. */
export async function startInProcess(config: Config, overrides: ServerOverrides): Promise<RunningServer> {
  const configured = await configureService(config, overrides);
  const { service, logger } = configured;
  if (configured.metrics) throw new Error('METRICS_PORT needs a socket: the suite belongs to pnpm test (vitest.unit.config.ts)');
  const answer: Answerer = async (sent) => {
    const got = await request(service.api, `${sent.method} ${sent.target}`, { headers: sent.headers, ip: CLIENT_IP, ...(sent.body ? { body: sent.body } : {}) });
    return new Response(NULL_BODY.has(got.status) || sent.method === 'HEAD' ? null : got.bytes, { status: got.status, headers: got.headers });
  };
  const port = nextPort++;
  // Named as a listening server names itself on loopback (ADR 48): http://localhost:<port>.
  const url = `http://localhost:${port}`;
  configured.listeningAt(url);
  const origins = [url, `http://127.0.0.1:${port}`];
  for (const origin of origins) servers.set(origin, answer);
  let closing: Promise<void> | undefined;
  return {
    url,
    metricsUrl: undefined,
    get server(): Server {
      throw new Error('an in-process test server has no node:http server; the case belongs to pnpm test');
    },
    accounts: service.accounts,
    logger,
    close: () =>
      (closing ??= (async () => {
        for (const origin of origins) servers.delete(origin);
        await configured.close();
      })()),
  };
}

/** The peer address an in-process request comes from, as over loopback. */
const CLIENT_IP = '127.0.0.1';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Statuses whose answers have no body (a web Response refuses one for them). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * Replaces this worker's global fetch with one that answers requests to in-process test servers;
 * any other URL is refused, as the unit run has no network.
 */
export function routeFetchInProcess(): void {
  const installed = Symbol.for('sl.in-process-fetch');
  const global = globalThis as { [installed]?: true };
  if (global[installed]) return; // without isolation, every test file runs the setup again
  global[installed] = true;
  globalThis.fetch = async (input, init) => {
    if (input instanceof Request) throw new Error('the in-process fetch takes a URL and options, not a Request');
    return fetchInProcess(new URL(String(input)), init ?? {});
  };
}

/**
 * fetch's behaviour over an in-process request: the request headers Node's fetch sends (host,
 * accept, user-agent, accept-encoding, content-type of a string body), redirects followed unless
 * `redirect: 'manual'`, content codings undone, no body for HEAD.
 */
async function fetchInProcess(url: URL, init: RequestInit, hops = 0): Promise<Response> {
  const answer = servers.get(url.origin);
  if (!answer) throw new TypeError(`fetch failed: no in-process test server at ${url.origin} (the unit run has no network)`);
  const method = (init.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {
    host: url.host,
    accept: '*/*',
    'accept-language': '*',
    'sec-fetch-mode': 'cors',
    'user-agent': 'node',
    'accept-encoding': 'gzip, deflate',
  };
  if (typeof init.body === 'string') headers['content-type'] = 'text/plain;charset=UTF-8';
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const body = bodyBytes(init.body);
  if (body === null && !['GET', 'HEAD'].includes(method)) headers['content-length'] = '0';
  const response = await answer({ method, target: `${url.pathname}${url.search}`, headers, body });

  const location = response.headers.get('location');
  if (REDIRECTS.has(response.status) && location !== null && init.redirect !== 'manual') {
    if (init.redirect === 'error' || hops >= 20) throw new TypeError('fetch failed: redirect');
    const next = new URL(location, url);
    const keepsMethod = response.status === 307 || response.status === 308 || method === 'GET' || method === 'HEAD';
    const followed = await fetchInProcess(next, keepsMethod ? init : { ...init, method: 'GET', body: null }, hops + 1);
    Object.defineProperties(followed, { redirected: { value: true } });
    return followed;
  }
  const decoded = await decode(response);
  Object.defineProperty(decoded, 'url', { value: url.href });
  return decoded;
}

function bodyBytes(body: RequestInit['body']): Uint8Array | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('the in-process fetch sends a string or bytes as the body');
}

/** The answer with its content coding undone, as fetch gives it (the Content-Encoding header stays). */
async function decode(response: Response): Promise<Response> {
  const coding = response.headers.get('content-encoding');
  if (!response.body || (coding !== 'gzip' && coding !== 'br' && coding !== 'deflate')) return response;
  const bytes = Buffer.from(await response.arrayBuffer());
  const plain = bytes.length === 0 ? bytes : coding === 'gzip' ? gunzipSync(bytes) : coding === 'br' ? brotliDecompressSync(bytes) : inflateSync(bytes);
  return new Response(plain, { status: response.status, headers: response.headers });
}
