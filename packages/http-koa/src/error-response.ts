import type { Context } from 'koa';
import type { Logger } from 'pino';
import { isDomainError, type DomainError, type RateLimitStatus } from '@sl/core';
import { clearedSessionCookie } from './session-cookie.ts';

/** The spec's ErrorResponse, with optional field issues on 400s. */
export interface ErrorBody {
  readonly ok: false;
  readonly error: string;
  readonly issues?: readonly { readonly path: string; readonly message: string }[];
}

export function sendError(ctx: Context, status: number, error: string, extra: Partial<ErrorBody> = {}): void {
  ctx.status = status;
  ctx.body = { ok: false, error, ...extra } satisfies ErrorBody;
}

/** `RateLimit-Policy` and `RateLimit` in draft-ietf-httpapi-ratelimit-headers-10 syntax. */
export function setRateLimitHeaders(ctx: Context, s: RateLimitStatus): void {
  ctx.set('RateLimit-Policy', `"${s.policy}";q=${s.limit};w=${s.windowSeconds}`);
  ctx.set('RateLimit', `"${s.policy}";r=${s.remaining};t=${s.resetSeconds}`);
}

const STATUS_BY_CODE: Readonly<Record<DomainError['code'], number>> = {
  validation: 400,
  invalid_credentials: 401,
  unauthenticated: 401,
  email_taken: 409,
  rate_limited: 429,
  store_unavailable: 503,
};

/** A client error whose message is safe to show as it is (raised by this adapter). */
export class BadRequest extends Error {
  readonly status: number;
  constructor(message: string, status = 400) {
    super(message);
    this.name = 'BadRequest';
    this.status = status;
  }
}

/** Errors from body parsing (http-errors) carry a client status; only these messages are shown. */
const CLIENT_ERRORS: Readonly<Record<number, string>> = {
  400: 'Malformed JSON body',
  413: 'Request body too large (the limit is 64 KiB)',
  415: 'Unsupported content encoding',
};

function clientStatus(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : null;
}

/**
 * The one place that turns errors into responses: domain errors by `code`, client errors from body
 * parsing by status, everything else as a generic 500 whose details go to the log only.
 */
export function respondToError(ctx: Context, error: unknown, logger: Logger): void {
  if (isDomainError(error)) {
    if (error.code === 'rate_limited') ctx.set('Retry-After', String(error.retryAfterSeconds));
    if (error.code === 'unauthenticated') ctx.append('Set-Cookie', clearedSessionCookie());
    if (error.code === 'store_unavailable') {
      // One short line per request: during an outage a stack per request would flood the log.
      const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
      logger.warn({ reqId: ctx.state.reqId, cause }, 'store unavailable');
    }
    sendError(ctx, STATUS_BY_CODE[error.code], error.message, error.code === 'validation' ? { issues: error.issues } : {});
    return;
  }
  if (error instanceof BadRequest) {
    sendError(ctx, error.status, error.message);
    return;
  }
  const status = clientStatus(error);
  if (status !== null) {
    sendError(ctx, status, CLIENT_ERRORS[status] ?? 'Bad request');
    return;
  }
  logger.error({ reqId: ctx.state.reqId, err: error }, 'unhandled error');
  sendError(ctx, 500, 'Internal server error');
}

/** Gives the responses Koa and the router leave empty (404, 405, 501) an ErrorResponse body. */
export function fillEmptyErrorBody(ctx: Context): void {
  if (ctx.status === 404) sendError(ctx, 404, 'Not found');
  else if (ctx.status === 405) sendError(ctx, 405, `Method not allowed; use ${ctx.response.get('Allow')}`);
  else if (ctx.status === 501) sendError(ctx, 501, 'Method not implemented');
}
