/**
 * A node:http server fit to face the internet: request timeouts that hold, caps on connections in
 * total and per peer, connections cut whose peer stopped reading, answers (and one short log line)
 * for bytes that are not HTTP, faulty framing refused before any host sees it, and a graceful stop
 * that drops no request that reached the socket (stop.ts).
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { silentLogger, type Logger } from '@sl-accounts/service/http';
import { answerClientError } from './client-error.ts';
import { refuseFaultyFraming } from './framing.ts';
import { cutSlowReaders, limitConnections, serverOptions, type HttpLimits } from './limits.ts';
import { trackForStop } from './stop.ts';

/** `createNodeServer`'s options: its limits, and where it logs. */
export interface NodeServerOptions {
  readonly limits: HttpLimits;
  /** Where refusals, cuts and client faults are logged (as counts, at most once a minute); default nowhere. */
  readonly logger?: Logger;
  /** The prefix an IPv6 peer is counted by for the per-address cap, as the rate limits count it; default the core's. */
  readonly ipv6Prefix?: number;
  /** Called for each connection cut because its peer stopped reading (a metric). */
  readonly onSlowReaderCut?: () => void;
}

/**
 * Hardens a node:http server made elsewhere: its request timeouts, the connection caps, the cut of
 * slow readers and the answers to client errors. (Node checks the timeouts every 30 s unless the
 * server was created with `serverOptions(limits)`, which checks every second.) Returns the cap on
 * open connections in force.
 */
export function hardenServer(server: Server, options: NodeServerOptions): number {
  const { limits, logger = silentLogger } = options;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  const maxConnections = limitConnections(server, limits, logger, options.ipv6Prefix);
  cutSlowReaders(server, limits, logger, options.onSlowReaderCut);
  server.on('clientError', answerClientError(logger));
  return maxConnections;
}

/** A hardened node:http server and its graceful stop. */
export interface NodeServer {
  readonly server: Server;
  /** The cap on open connections in force. */
  readonly maxConnections: number;
  /**
   * Stops, dropping nothing that reached the socket: requests waiting in the listen backlog or unread
   * in a connection are accepted and read first, and every request is answered, its answer saying
   * `Connection: close` (so keep-alive clients leave instead of holding the stop up). Connections that
   * received nothing since their last answer are closed at once. Requests still unanswered after
   * `drainMs` are answered 503; connections still open 250 ms later are cut. Resolves once the server
   * is closed.
   */
  close(drainMs: number): Promise<void>;
}

/**
 * `http.createServer(listener)`, hardened (see `hardenServer`), with requests of faulty framing
 * refused (400, connection closed) before `listener` sees them. Listen on `server` as usual:
 *
 *   const { server, close } = createNodeServer(accounts(service), { limits, logger });
 *   server.listen(3000);
 */
export function createNodeServer(listener: RequestListener, options: NodeServerOptions): NodeServer {
  const logger = options.logger ?? silentLogger;
  const server = createServer(serverOptions(options.limits));
  const maxConnections = hardenServer(server, options);
  // Registered before the listener, so it sees each response before the listener writes it.
  const close = trackForStop(server, logger);
  server.on('request', refuseFaultyFraming(listener, logger));
  return { server, maxConnections, close };
}
