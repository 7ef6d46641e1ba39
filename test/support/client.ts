/**
 * A small fetch client for the end-to-end suites. Every response goes through `request`, so checks
 * that apply to all responses live in one place: each one is checked against the OpenAPI document.
 */
import { checkAgainstOpenApi } from './openapi-contract.ts';

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  readonly body: unknown;
  readonly setCookies: string[];
}

export interface RequestOptions {
  readonly method?: string;
  /** A value to send as JSON, or a raw string body. */
  readonly json?: unknown;
  readonly raw?: string;
  readonly headers?: Record<string, string>;
  /** Sent as `Cookie: sl_session=<token>`. */
  readonly session?: string;
  /** Sent as `X-Forwarded-For` (only honoured with TRUST_PROXY). */
  readonly ip?: string;
  /** The base path the service is mounted under: `path` is checked against the OpenAPI document without it. */
  readonly basePath?: string;
}

export async function request(baseUrl: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  } else if (options.raw !== undefined) {
    body = options.raw;
  }
  if (options.session !== undefined) headers.cookie = `sl_session=${options.session}`;
  if (options.ip !== undefined) headers['x-forwarded-for'] = options.ip;
  const url = new URL(path, baseUrl);
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
  const response = { status: res.status, headers: res.headers, body: parsed, setCookies: res.headers.getSetCookie() };
  const { basePath } = options;
  const documented = basePath && url.pathname.startsWith(`${basePath}/`) ? new URL(url.pathname.slice(basePath.length) + url.search, url) : url;
  checkAgainstOpenApi(method, documented, { ...response, text });
  return response;
}

/** The `sl_session` token a response sets, or `undefined`. */
export function sessionFrom(res: ApiResponse): string | undefined {
  for (const cookie of res.setCookies) {
    const match = /^sl_session=([^;]*)/.exec(cookie);
    if (match?.[1]) return match[1];
  }
  return undefined;
}

let ipCounter = 0;
/** A distinct client IP per call, so tests of bounds and bodies never meet the rate limits. */
export const freshIp = (): string => `10.0.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;
