import { isDomainError, type DomainErrorCode, type FieldIssue } from '@sl-accounts/core';
import { jsonAnswer, type HttpAnswer } from './http-types.ts';
import type { Logger } from './logger.ts';
import { clearedSessionCookie } from './session-cookie.ts';

/** The spec's ErrorResponse, with every field issue on 400s. */
export interface ErrorBody {
  readonly ok: false;
  readonly error: string;
  readonly issues?: readonly FieldIssue[];
}

/** The spec's ErrorResponse with `status` and the message `error`; `headers` are added to the JSON content type. */
export function errorResponse(status: number, error: string, headers: Record<string, string | string[]> = {}, issues?: readonly FieldIssue[]): HttpAnswer & { readonly body: string } {
  const body: ErrorBody = issues ? { ok: false, error, issues } : { ok: false, error };
  return jsonAnswer(status, body, headers);
}

/**
 * The status of every domain error. Typed over every `code` of core's DOMAIN_ERRORS, so a new
 * domain error does not compile until it has a status here.
 */
export const STATUS_BY_CODE: Readonly<Record<DomainErrorCode, number>> = {
  validation: 400,
  invalid_credentials: 401,
  unauthenticated: 401,
  wrong_password: 403,
  not_found: 404,
  email_taken: 409,
  rate_limited: 429,
  store_unavailable: 503,
};

/** A client error found by the transport (body rules, routing); its message is safe to show. */
export class HttpError extends Error {
  readonly status: number;
  /** Safe to show (http-errors' convention, which Koa's and Express's error handlers follow). */
  readonly expose = true;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
  }
}

/**
 * The answer to anything thrown: the one place that maps errors to ErrorResponse answers. Domain
 * errors by `code`, transport errors by their status, anything else as a generic 500 whose details
 * go to the log only.
 */
export function answerForThrown(error: unknown, logger: Logger, reqId: string): HttpAnswer {
  if (isDomainError(error)) {
    const status = STATUS_BY_CODE[error.code];
    switch (error.code) {
      case 'validation':
        return errorResponse(status, error.message, {}, error.issues);
      case 'rate_limited':
        return errorResponse(status, error.message, { 'retry-after': String(error.retryAfterSeconds) });
      case 'unauthenticated':
        return errorResponse(status, error.message, { 'set-cookie': clearedSessionCookie() });
      case 'store_unavailable': {
        // One short line per request: during an outage a stack per request would flood the log.
        const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
        logger.warn({ reqId, cause }, 'store unavailable');
        return errorResponse(status, error.message);
      }
      default:
        return errorResponse(status, error.message);
    }
  }
  if (error instanceof HttpError) return errorResponse(error.status, error.message);
  logger.error({ reqId, err: error }, 'unhandled error');
  return errorResponse(500, 'Internal server error');
}
