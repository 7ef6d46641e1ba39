/**
 * Request framing that RFC 9112 calls faulty and node:http lets through: refused with 400 and the
 * connection closed, before any host sees the request. Each is a way for two parsers on the path (a
 * proxy in front, this server) to read one message differently (request smuggling, or a request
 * routed for one host and served for another):
 *
 * - more than one `Host` field line (RFC 9112 §3.2: the server MUST answer 400); node keeps the first
 *   and drops the rest, so only `rawHeaders` shows them;
 * - an absolute-form target whose authority differs from `Host`. RFC 9112 §3.2.2 has the server use
 *   the target and ignore `Host`; a client MUST send them identical, so a difference only comes from a
 *   client or a proxy that is wrong or lying, and which of the two a proxy in front routed by is
 *   unknown: refusing is the one answer that cannot serve the wrong host;
 * - `Transfer-Encoding` on an HTTP/1.0 request (RFC 9112 §6.1: the server MUST treat the framing as
 *   faulty and close the connection after answering), which llhttp would decode as chunked.
 *
 * node's own `requireHostHeader` (on by default) already answers 400 to HTTP/1.1 without `Host`.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { errorResponse, nextRequestId, requestPath, type Logger } from '@sl-accounts/service/http';

/** Why the request's framing is faulty, or `undefined` when it is not. */
export function faultyFraming(req: IncomingMessage): string | undefined {
  const raw = req.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) return 'More than one Host header';
  if (req.httpVersion === '1.0' && req.headers['transfer-encoding'] !== undefined) return 'Transfer-Encoding is not allowed on an HTTP/1.0 request';
  const target = req.url ?? '';
  if (target.startsWith('/') || target === '*') return undefined;
  // Absolute form: its authority and Host must name the same host and port (compared as URLs do,
  // so case and a scheme's default port do not count), and Host nothing else (no user, path, query).
  const host = req.headers.host;
  if (host === undefined) return undefined;
  const authority = URL.parse(target);
  if (!authority || URL.parse(`${authority.protocol}//${host}`)?.href !== `${authority.protocol}//${authority.host}/`) return 'Host does not match the request target';
  return undefined;
}

/** `listener`, behind the framing check: a faulty request gets 400, `Connection: close`, and nothing else. */
export function refuseFaultyFraming(listener: RequestListener, logger: Logger): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const fault = faultyFraming(req);
    if (fault === undefined) return listener(req, res);
    // As the request lines: an id the answer carries too, and the path without its query.
    const reqId = nextRequestId();
    logger.info({ reqId, method: req.method, path: requestPath(req.url ?? '/'), status: 400, fault }, 'faulty framing: refused, connection closed');
    const answer = errorResponse(400, 'malformed_request', fault, { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store', 'x-request-id': reqId, connection: 'close' });
    const body = answer.body ?? '';
    res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(body) }).end(body);
  };
}
