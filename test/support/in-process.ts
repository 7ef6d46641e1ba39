/**
 * End-to-end requests without sockets, for `pnpm test:unit` (TEST_IN_PROCESS=1). The test server is
 * composed exactly as `startServer` composes it (same config, store, core, contract, documents and
 * MCP endpoint) under the real host (Koa or plain node:http), and the suites' `fetch` calls to it are
 * injected straight into that host's request listener with light-my-request: the host hands each
 * request to `api.handle` (or `/mcp` to the MCP endpoint) as it does in production, but no
 * connection, parser or kernel lies in between, so hundreds of cases take seconds.
 *
 * `startServer` still listens (the composition root has no way around it), but its socket answers
 * every request with 421: a case that bypasses `fetch` (raw node:http, a child process, a browser)
 * fails rather than quietly testing the network path. Such suites run in `pnpm test` only.
 */
import type { RequestListener } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { inject } from 'light-my-request';
import type { ListenerFactory } from '@sl-accounts/server';

/** Whether this run answers test servers in-process (`pnpm test:unit` sets it). */
export const IN_PROCESS = process.env.TEST_IN_PROCESS === '1';

const listeners = new Map<string, RequestListener>();

/**
 * Wraps `host`: the listener it makes is kept for in-process requests, and the socket gets one that
 * refuses. `listener()` returns the kept one once the server started.
 */
export function capturingHost(host: ListenerFactory): { readonly host: ListenerFactory; listener(): RequestListener } {
  let captured: RequestListener | undefined;
  const refuse: RequestListener = (_req, res) => {
    res.writeHead(421, { 'content-type': 'text/plain' }).end('this test server answers in-process only (TEST_IN_PROCESS, test/support/in-process.ts)');
  };
  return {
    host: (service) => {
      captured = host(service);
      return refuse;
    },
    listener: () => {
      if (!captured) throw new Error('the host was never given the service');
      return captured;
    },
  };
}

/** Answers requests to `baseUrl` in-process (also under the name localhost, which tests use too). */
export function register(baseUrl: string, listener: RequestListener): () => void {
  const url = new URL(baseUrl);
  const origins = [url.origin, `${url.protocol}//localhost:${url.port}`];
  for (const origin of origins) listeners.set(origin, listener);
  return () => {
    for (const origin of origins) listeners.delete(origin);
  };
}

/**
 * Replaces the global fetch of this test worker with one that injects requests to a registered
 * server into its listener and hands any other request to the real fetch.
 */
export function routeFetchInProcess(): void {
  const installed = Symbol.for('sl.in-process-fetch');
  const global = globalThis as { [installed]?: true };
  if (global[installed]) return; // without isolation, every test file runs the setup again
  global[installed] = true;
  const real = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!listeners.has(url.origin)) return real(input, init);
    if (input instanceof Request) throw new Error('the in-process fetch takes a URL and options, not a Request');
    return injectFetch(url, init ?? {});
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Statuses whose answers have no body (a web Response refuses one for them). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * fetch's behaviour over an injected request: the request headers Node's fetch sends (host, accept,
 * user-agent, accept-encoding, content-type of a string body, content-length), redirects followed
 * unless `redirect: 'manual'`, content codings undone, no body for HEAD.
 */
async function injectFetch(url: URL, init: RequestInit, hops = 0): Promise<Response> {
  const listener = listeners.get(url.origin);
  if (!listener) throw new Error(`no in-process server at ${url.origin}`);
  const method = (init.method ?? 'GET').toUpperCase();
  const body = init.body === undefined || init.body === null ? null : typeof init.body === 'string' ? Buffer.from(init.body) : Buffer.from(init.body as Uint8Array);
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
  if (body !== null || !['GET', 'HEAD'].includes(method)) headers['content-length'] = String(body?.length ?? 0);
  const answer = await inject(listener, { method, url: `${url.pathname}${url.search}`, headers, remoteAddress: '127.0.0.1', ...(body === null ? {} : { payload: body }) });

  const location = answer.headers.location;
  if (REDIRECTS.has(answer.statusCode) && typeof location === 'string' && init.redirect !== 'manual') {
    if (init.redirect === 'error' || hops >= 20) throw new TypeError('fetch failed: redirect');
    const next = new URL(location, url);
    const keepsMethod = answer.statusCode === 307 || answer.statusCode === 308 || (method === 'GET' || method === 'HEAD');
    const followed = await (listeners.has(next.origin) ? injectFetch(next, keepsMethod ? init : { ...init, method: 'GET', body: null }, hops + 1) : globalThis.fetch(next));
    Object.defineProperties(followed, { redirected: { value: true }, url: { value: followed.url || next.href } });
    return followed;
  }

  const out = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, String(v));
  }
  let bytes: Buffer = answer.rawPayload;
  const coding = out.get('content-encoding');
  if (bytes.length > 0 && coding === 'gzip') bytes = gunzipSync(bytes);
  else if (bytes.length > 0 && coding === 'br') bytes = brotliDecompressSync(bytes);
  else if (bytes.length > 0 && coding === 'deflate') bytes = inflateSync(bytes);
  const withBody = method !== 'HEAD' && !NULL_BODY.has(answer.statusCode);
  const response = new Response(withBody ? bytes : null, { status: answer.statusCode, headers: out });
  Object.defineProperty(response, 'url', { value: url.href });
  return response;
}
