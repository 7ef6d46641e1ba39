/**
 * node:http's `clientError`: a connection that broke, or sent bytes that are not HTTP, before a
 * request reached the service. Node answers these itself when nobody listens, but silently; this
 * listener answers the same way and logs one short line, since any client can cause any number.
 */
import type { Duplex } from 'node:stream';
import { logClientFault, type Logger } from '@sl-accounts/service/http';

/** Node's own answers to a request it could not parse (as its default listener sends them). */
const ANSWERS: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

export function answerClientError(logger: Logger): (error: Error & { code?: string }, socket: Duplex) => void {
  return (error, socket) => {
    logClientFault(logger, error, 'connection error');
    // As node does: answer only when no response of this connection has started (node links the
    // one in flight as `_httpMessage`), so the answer cannot corrupt another one.
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
      const status = ANSWERS[error.code ?? ''] ?? '400 Bad Request';
      socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    }
    socket.destroy();
  };
}
