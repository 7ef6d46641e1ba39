import type { RateLimitStatus, RequestMeta } from '@sl/core';
import { readJsonBody } from './body.ts';
import { clientAddress } from './client-address.ts';
import { headerValue, type HttpRequest } from './http-types.ts';
import { silentLogger, type Logger } from './logger.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import { SESSION_COOKIE } from './session-cookie.ts';

/**
 * One request on its way through an operation. Everything is computed on demand, so an operation
 * pays only for what it reads: `/api/me` parses the cookie and nothing else.
 */
export class Exchange {
  readonly request: HttpRequest;
  readonly #trustProxy: number;
  readonly #logger: Logger;
  readonly #params: Readonly<Record<string, string>>;
  /**
   * The quota of each policy that counted the request, latest report per policy, in counting order;
   * made when the first one reports (most requests count against none).
   */
  #limits: Map<string, RateLimitStatus> | undefined;

  constructor(request: HttpRequest, trustProxy: number, logger: Logger = silentLogger, params: Readonly<Record<string, string>> = {}) {
    this.request = request;
    this.#params = params;
    this.#trustProxy = trustProxy;
    this.#logger = logger;
  }

  /** Adds the headers the answer carries whatever its outcome (the RateLimit headers, once counted). */
  addHeaders(headers: Record<string, string | string[]>): void {
    if (this.#limits) Object.assign(headers, rateLimitHeaders([...this.#limits.values()]));
  }

  /** The `sl_session` cookie's value, or `null`. The first one wins when a client sends several. */
  sessionToken(): string | null {
    const cookie = headerValue(this.request.headers, 'cookie');
    if (!cookie) return null;
    for (const pair of cookie.split(';')) {
      const eq = pair.indexOf('=');
      if (eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) return pair.slice(eq + 1).trim() || null;
    }
    return null;
  }

  /** A `{name}` segment of the route's path, as the request spelled it (percent-decoded). */
  param(name: string): string {
    const value = this.#params[name];
    if (value === undefined) throw new Error(`the route has no {${name}} segment`);
    return value;
  }

  clientIp(): string {
    return clientAddress(this.request, this.#trustProxy, this.#logger);
  }

  /** What the limited operations need: the client, its user agent and session, and the quota report. */
  meta(): RequestMeta {
    return {
      clientIp: this.clientIp(),
      userAgent: headerValue(this.request.headers, 'user-agent') || null,
      sessionToken: this.sessionToken(),
      onRateLimit: (status: RateLimitStatus) => void (this.#limits ??= new Map()).set(status.policy, status),
    };
  }

  /** The body as a function: the use case calls it only after the rate limit counted the request. */
  body(): () => Promise<unknown> {
    return () => readJsonBody(this.request);
  }
}
