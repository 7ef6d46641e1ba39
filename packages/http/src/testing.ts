/**
 * Testing an app that embeds the service, in-process (`@sl-accounts/service/http/testing`): `request` hands
 * one request to `api.handle` as a host would, with no server and no socket, and gives back what a
 * test reads; `ManualClock` moves time without waiting; `testHasher` hashes passwords at no cost.
 * Not part of the production surface.
 *
 *   const service = await createService({ store: createMemoryStore(), clock, hasher: testHasher });
 *   const login = await request(service.api, 'POST /api/login', { json: { email, password } });
 *   const me = await request(service.api, 'GET /api/me', { cookie: login.cookies });
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { HttpApi } from './api.ts';
import { isStreamBody, type HttpRequest } from './http-types.ts';

export { ManualClock } from '@sl-accounts/service/core/testing';
export { testHasher } from '@sl-accounts/service/core/testing';
export { captureMail, type CapturedMail, type SentMail } from '@sl-accounts/service/core/testing';

export interface TestRequestOptions {
  /** A value sent as the JSON body, with `Content-Type: application/json`. */
  readonly json?: unknown;
  /** A raw body instead (its Content-Type goes in `headers`). */
  readonly body?: string | Uint8Array;
  /** The client's address as the socket gives it; default `192.0.2.1`. Rate limits count per address. */
  readonly ip?: string;
  /**
   * The Cookie header: as a string (`sl_session=…`), or cookies by name, such as an earlier answer's
   * `cookies` (those it cleared, with an empty value, are left out).
   */
  readonly cookie?: string | Readonly<Record<string, string>>;
  /** More request headers (lower or mixed case); `host` defaults to `localhost`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Whether the connection is TLS; default false. */
  readonly secure?: boolean;
}

/**
 * `T` is what the test expects the JSON body to be, as the test says it (`request<{ user: { email:
 * string } }>(api, 'GET /api/me')`): a generic rather than a type per route, since one route
 * answers several bodies by status (a user, or the contract's ErrorResponse) and the test, not the
 * type, says which it expects. Unchecked at run time, as `await response.json() as T` is with fetch.
 */
export interface TestAnswer<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  /** The body as sent (a HEAD answer has none, as hosts leave it out). */
  readonly bytes: Uint8Array;
  /** The body as UTF-8 text, its content coding (a document compressed for `accept-encoding`) undone, as fetch gives it. */
  readonly text: string;
  /** The body parsed, when it is JSON; else `undefined` (whatever `T` says). */
  readonly json: T;
  /** The cookies the answer sets, by name: `cookies.sl_session` is the session token ('' when it clears it). */
  readonly cookies: Readonly<Record<string, string>>;
}

const DEFAULT_IP = '192.0.2.1';

/**
 * One request through `api.handle`, in-process. `target` is the method and the request target:
 * `'POST /api/signup'`, `'GET /api/me'`, `'GET /openapi.json?x=1'`.
 */
export async function request<T = unknown>(api: Pick<HttpApi, 'handle' | 'settled'>, target: string, options: TestRequestOptions = {}): Promise<TestAnswer<T>> {
  const parsed = /^([A-Z]+) (\S+)$/.exec(target);
  if (!parsed) throw new TypeError(`request target must read "METHOD /path", not ${JSON.stringify(target)}`);
  const [, method = 'GET', url = '/'] = parsed;
  const headers: Record<string, string> = { host: 'localhost' };
  let body: Uint8Array | null = null;
  if (options.json !== undefined) {
    body = Buffer.from(JSON.stringify(options.json));
    headers['content-type'] = 'application/json';
  } else if (options.body !== undefined) {
    body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
  }
  if (body) headers['content-length'] = String(body.byteLength);
  const cookie = typeof options.cookie === 'string' ? options.cookie : cookieHeader(options.cookie ?? {});
  if (cookie) headers.cookie = cookie;
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;

  const sent: HttpRequest = {
    method,
    url,
    headers,
    remoteAddress: options.ip ?? DEFAULT_IP,
    secure: options.secure ?? false,
    body: body === null ? null : once(body),
  };
  const answer = await api.handle(sent);
  // The mail the request caused is with the mailer when the test reads the answer: no poll to wait for.
  await api.settled?.();

  const out = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) for (const v of typeof value === 'string' ? [value] : value) out.append(name, v);
  const bytes = method === 'HEAD' || answer.body === null ? new Uint8Array() : typeof answer.body === 'string' ? Buffer.from(answer.body) : isStreamBody(answer.body) ? await readAll(answer.body) : answer.body;
  const text = decoded(bytes, out.get('content-encoding')).toString('utf8');
  const isJson = /[/+]json\b/.test(out.get('content-type') ?? '') && text !== '';
  return { status: answer.status, headers: out, bytes, text, json: (isJson ? JSON.parse(text) : undefined) as T, cookies: cookiesOf(out.getSetCookie()) };
}

/** The body with its content coding undone. */
function decoded(bytes: Uint8Array, coding: string | null): Buffer {
  if (bytes.byteLength === 0) return Buffer.from(bytes);
  if (coding === 'br') return brotliDecompressSync(bytes);
  if (coding === 'gzip') return gunzipSync(bytes);
  return Buffer.from(bytes);
}

/** A streamed answer (an MCP event stream) read to its end, as a client that waits for the whole answer would. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

function cookieHeader(cookies: Readonly<Record<string, string>>): string {
  return Object.entries(cookies)
    .filter(([, value]) => value !== '')
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
}

function cookiesOf(setCookies: readonly string[]): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const line of setCookies) {
    const pair = line.split(';', 1)[0] ?? '';
    const eq = pair.indexOf('=');
    if (eq > 0) cookies[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return cookies;
}
