import { isDomainError, type DomainErrorCode, type FieldIssue } from '@sl-accounts/service/core';
import { jsonAnswer, type HttpAnswer } from './http-types.ts';
import type { Logger } from './logger.ts';
import { clearedSessionCookie } from './session-cookie.ts';

/**
 * The codes of the answers the transport gives by itself, before or beside a use case, with their
 * status. With the core's domain error codes they are every `code` an ErrorResponse carries: stable
 * snake_case names a client branches on (the `error` text may change). docs/api.md lists them all.
 */
export const TRANSPORT_ERROR_STATUS = {
  json_required: 400,
  malformed_json: 400,
  invalid_utf8: 400,
  undecodable_body: 400,
  unreadable_body: 400,
  body_not_allowed: 400,
  invalid_host: 400,
  malformed_request: 400,
  cross_site: 403,
  email_not_verified: 403,
  unknown_path: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  body_too_large: 413,
  unsupported_encoding: 415,
  internal_error: 500,
  method_not_implemented: 501,
  stopping: 503,
} as const;

/** A code of the transport's own answers (see TRANSPORT_ERROR_STATUS). */
export type TransportErrorCode = keyof typeof TRANSPORT_ERROR_STATUS;

/** Every `code` an ErrorResponse may carry: a domain error's or the transport's. */
export type ErrorCode = DomainErrorCode | TransportErrorCode;

/**
 * The spec's ErrorResponse (`ok`, `error`), with a machine-readable `code` beside them (additive)
 * and every field issue on 400s.
 */
export interface ErrorBody {
  readonly ok: false;
  readonly error: string;
  readonly code: ErrorCode;
  readonly issues?: readonly FieldIssue[];
}

/** The spec's ErrorResponse with `status`, its `code` and the message `error`; `headers` are added to the JSON content type. */
export function errorResponse(
  status: number,
  code: ErrorCode,
  error: string,
  headers: Record<string, string | string[]> = {},
  issues?: readonly FieldIssue[],
): HttpAnswer & { readonly body: string } {
  const body: ErrorBody = issues ? { ok: false, error, code, issues } : { ok: false, error, code };
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
  login_challenge_invalid: 401,
  invalid_code: 401,
  wrong_code: 403,
  second_factor_required: 403,
  two_factor_state: 409,
  two_factor_unavailable: 503,
  passkeys_unavailable: 503,
  unknown_provider: 404,
  provider_unavailable: 503,
  sign_in_refused: 400,
  last_sign_in_method: 409,
  account_locked: 403,
  account_changed: 409,
  sign_in_required: 403,
};

/** A client error found by the transport (body rules, routing); its message is safe to show. */
export class HttpError extends Error {
  readonly status: number;
  /** The ErrorResponse's `code`. */
  readonly code: ErrorCode;
  /** Safe to show (http-errors' convention, which Koa's and Express's error handlers follow). */
  readonly expose = true;
  constructor(status: number, message: string, code: ErrorCode) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
  }
}

/**
 * The answer to anything thrown: the one place that maps errors to ErrorResponse answers. Domain
 * errors by `code`, transport errors by their status, anything else as a generic 500 whose details
 * go to the log only.
 */
export function answerForThrown(error: unknown, logger: Logger, reqId: string): HttpAnswer {
  if (isDomainError(error)) {
    const { code } = error;
    const status = STATUS_BY_CODE[code];
    switch (error.code) {
      case 'validation':
        return errorResponse(status, code, error.message, {}, error.issues);
      case 'rate_limited':
        return errorResponse(status, code, error.message, { 'retry-after': String(error.retryAfterSeconds) });
      case 'unauthenticated':
        return errorResponse(status, code, error.message, { 'set-cookie': clearedSessionCookie() });
      case 'store_unavailable': {
        // One short line per request: during an outage a stack per request would flood the log.
        const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
        logger.warn({ reqId, cause }, 'store unavailable');
        return errorResponse(status, code, error.message);
      }
      default:
        return errorResponse(status, code, error.message);
    }
  }
  if (error instanceof HttpError) return errorResponse(error.status, error.code, error.message);
  logger.error({ reqId, err: error }, 'unhandled error');
  return errorResponse(500, 'internal_error', 'Internal server error');
}
