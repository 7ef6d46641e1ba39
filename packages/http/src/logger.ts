import { randomBytes } from 'node:crypto';
import { headerValue, type HttpRequest } from './http-types.ts';

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
/** A fresh request id, unique per process (for answers a host gives before the contract sees the request). */
export const nextRequestId = (): string => `${bootId}-${(++requestCounter).toString(36)}`;

/**
 * What an incoming `X-Request-Id` may hold to be kept: up to 128 characters that can go into a log
 * line and a header as they are (UUIDs, ULIDs, base64, `Root=1-…` trace ids).
 */
const REQUEST_ID = /^[A-Za-z0-9._:=+/-]{1,128}$/;

/**
 * The request's id: with trusted proxies (`trustProxy` > 0), the `X-Request-Id` they sent when it is
 * well-formed, so one request can be followed through every hop; else a fresh one. A client that
 * talks to the server directly cannot choose the id its log lines carry.
 */
export function requestIdOf(request: Pick<HttpRequest, 'headers'>, trustProxy: number): string {
  if (trustProxy > 0) {
    const given = headerValue(request.headers, 'x-request-id');
    if (given !== undefined && REQUEST_ID.test(given)) return given;
  }
  return nextRequestId();
}

/**
 * What one request log line holds: no headers, bodies, cookies or query strings, so nothing secret.
 * A class, so a logger can tell the request line from any other entry (`instanceof`) and write it
 * without walking an arbitrary object (the server's JSON log does: see `createLogger`).
 */
export class RequestRecord {
  readonly reqId: string;
  readonly method: string;
  /** The path without its query string. */
  readonly path: string;
  readonly status: number;
  /** Milliseconds from the request's arrival at the contract to its answer, one decimal. */
  readonly ms: number;

  constructor(reqId: string, method: string, path: string, status: number, ms: number) {
    this.reqId = reqId;
    this.method = method;
    this.path = path;
    this.status = status;
    this.ms = ms;
  }
}

/** The message of the request line. */
export const REQUEST_MESSAGE = 'request';

/** Writes the one line per request, with the duration since `start` (a `performance.now()` value). */
export function logRequest(logger: Logger, reqId: string, method: string, path: string, status: number, start: number): void {
  logger.info(new RequestRecord(reqId, method, path, status, Math.round((performance.now() - start) * 10) / 10), REQUEST_MESSAGE);
}
