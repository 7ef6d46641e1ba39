import type { Logger } from './logger.ts';

/** Codes of a connection the client broke: it went away, or sent bytes that are not HTTP. */
const CLIENT_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED', 'ERR_HTTP_REQUEST_TIMEOUT']);

/** The error's code when it is the client's fault (a hang-up, an `HPE_*` parser error), else `null`. */
export function clientFaultCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  return CLIENT_CODES.has(code) || code.startsWith('HPE_') ? code : null;
}

export const isClientFault = (error: unknown): boolean => clientFaultCode(error) !== null;

/**
 * Logs a connection error: the client's own fault as one short line at `level` (any client can cause any
 * number of them, so they must not flood the error log with stacks), anything else as an error.
 */
export function logClientFault(logger: Logger, error: unknown, message: string, level: 'info' | 'debug' = 'info'): void {
  const code = clientFaultCode(error);
  if (code) logger[level]({ code }, `${message}: the client hung up or sent a malformed request`);
  else logger.error({ err: error }, message);
}
