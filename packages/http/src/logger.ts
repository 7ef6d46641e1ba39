import { randomBytes } from 'node:crypto';

/**
 * The part of a pino-style logger the contract uses: an object of fields, then a message. A
 * structural copy, so the contract needs no logging library (pino satisfies it as it is).
 */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Discards everything: the default when an embedder passes no logger. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Request ids: unique per process start (a random prefix) and cheap per request (a counter). */
const bootId = randomBytes(6).toString('base64url');
let requestCounter = 0;
export const nextRequestId = (): string => `${bootId}-${(++requestCounter).toString(36)}`;

/** What one request log line holds: no headers, bodies, cookies or query strings, so nothing secret. */
export interface RequestRecord {
  readonly reqId: string;
  readonly method: string;
  /** The path without its query string. */
  readonly path: string;
  readonly status: number;
  /** Milliseconds from the request's arrival at the contract to its answer, one decimal. */
  readonly ms: number;
}

/** Writes the one line per request, with the duration since `start` (a `performance.now()` value). */
export function logRequest(logger: Logger, reqId: string, method: string, path: string, status: number, start: number): void {
  const record: RequestRecord = { reqId, method, path, status, ms: Math.round((performance.now() - start) * 10) / 10 };
  logger.info(record, 'request');
}
