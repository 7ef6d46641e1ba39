import { StoreUnavailable } from '@sl-accounts/service/core';

/** Node socket errors and SQLSTATEs that mean "the server is not there (now)", not "the query is wrong". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown: the backend was terminated
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
  '57014', // query_canceled: statement_timeout ended a statement the server could not finish in time
]);

/**
 * pg reports a lost or timed-out connection, a statement past its `query_timeout` and a pool that
 * is closing with a plain Error and no code.
 */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|Client was closed and is not queryable|Cannot use a pool after calling end on the pool)/;

/** Whether `error` says the database could not be reached, as opposed to a bug or a refused statement. */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof StoreUnavailable) return true;
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  // SQLSTATE class 08: connection exception.
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  // Node tries every address of a host name and reports them together.
  if (error instanceof AggregateError && error.errors.some(isConnectionError)) return true;
  return error instanceof Error && UNAVAILABLE_MESSAGES.test(error.message);
}

/** Rethrows connection errors as core's StoreUnavailable (HTTP 503); other errors stay as they are. */
export function toStoreError(error: unknown): unknown {
  if (error instanceof StoreUnavailable || !isConnectionError(error)) return error;
  return new StoreUnavailable({ cause: error });
}

/**
 * A one-line reason for operators (start-up failures, the migrate script). StoreUnavailable's own
 * message is written for clients, so this reports its cause; Node's AggregateError (one error per
 * address of a host name) has no message of its own.
 */
export function describeDatabaseError(error: unknown): string {
  const cause = error instanceof StoreUnavailable ? error.cause : error;
  if (cause instanceof AggregateError && cause.errors.length > 0) return cause.errors.map(describeDatabaseError).join('; ');
  return cause instanceof Error ? cause.message || cause.name : String(cause);
}
