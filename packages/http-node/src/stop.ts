/**
 * The graceful stop of a node:http server: every request that reached the socket before the stop is
 * answered, however busy the event loop was when it came; only connections that received nothing are
 * closed at once.
 *
 * node's `server.close()` falls short of that. It closes the listening socket at once, and the
 * kernel resets every connection still waiting in its backlog; libuv accepts only one connection per
 * poll phase (libuv/libuv#3696), so on a busy event loop the backlog fills: on `pnpm start` with 20
 * logins, up to 14 of them were reset (issue 25). It closes at once each connection its parser calls
 * idle (between two requests, no answer pending), which includes a kept-alive one whose next request
 * sits unread in the socket's receive buffer: closing a socket with unread bytes is a reset too. And
 * it leaves open a connection that never sent a byte (its parser waits for a first request), which
 * then holds the stop up to the headers timeout.
 *
 * Both kinds of request are only loop turns away from being read: libuv reads every socket that has
 * bytes in one poll phase, and the listening socket stays readable while its backlog holds more. So
 * the stop lets the loop turn until a poll phase accepted nothing, closes the listening socket, lets
 * one more poll phase read what the connections hold, and then closes the connections that received
 * nothing since their last answer (or since they opened), by its own count of bytes read.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setImmediate as nextImmediate } from 'node:timers/promises';
import { errorResponse, type Logger } from '@sl-accounts/service/http';
import { InFlight } from './in-flight.ts';

/** What the stop knows of an open connection. */
interface Connection {
  readonly socket: Socket;
  /** Requests on it whose response has not closed yet. */
  open: number;
  /** `socket.bytesRead` when its last response closed (0 before the first): more read since is a request begun. */
  answeredAt: number;
}

const CONNECTION = Symbol('connection');
type TrackedSocket = Socket & { [CONNECTION]?: Connection };

const ANSWERED_BY_STOP = Symbol('answered by the stop');

/** Whether the stop answered `res` itself (503 at its drain bound): the host's own answer has nowhere to go. */
export function answeredByStop(res: ServerResponse): boolean {
  return (res as ServerResponse & { [ANSWERED_BY_STOP]?: true })[ANSWERED_BY_STOP] === true;
}

/**
 * After the 503s at the drain bound, how long their connections have to take them before every
 * connection still open is cut. A 503 is a few hundred bytes, in the kernel's buffer at once.
 */
export const CUT_AFTER_DRAIN_MS = 250;

/**
 * Tracks `server`'s connections and responses (register it before the request listener, so it
 * sees each response before the listener writes it) and returns its stop: `stop(drainMs)`.
 *
 * The stop marks the answers still to be written `Connection: close`, accepts what waits in the
 * listen backlog, stops listening, and reads what the connections hold. Then it closes each
 * connection that received nothing since its last answer; the others close after their answer
 * (`Connection: close`, also on a request that arrives on one after the stop began). Requests still
 * unanswered at `drainMs` are answered 503 `Connection: close`, and connections still open
 * `CUT_AFTER_DRAIN_MS` later are cut. Resolves once the server is closed.
 */
export function trackForStop(server: Server, logger: Logger): (drainMs: number) => Promise<void> {
  const connections = new InFlight<Connection>();
  const responses = new InFlight<ServerResponse>();
  // Connections accepted so far, kept or dropped over the cap: a poll phase that adds none found the backlog empty.
  let accepted = 0;
  let stopping = false;
  // Set once the listening socket is closed and a poll has read what connections held: from then
  // on, a connection idle after its answer is closed (after another poll, for bytes in flight).
  let closingIdle = false;

  const idle = ({ socket, open, answeredAt }: Connection) => open === 0 && socket.bytesRead === answeredAt && socket.writableLength === 0;
  const closeIfIdle = (connection: Connection) => {
    if (idle(connection)) connection.socket.destroy();
  };

  server.on('drop', () => accepted++);
  server.on('connection', (socket: TrackedSocket) => {
    accepted++;
    const connection: Connection = { socket, open: 0, answeredAt: 0 };
    socket[CONNECTION] = connection;
    socket.once('close', connections.add(connection));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (stopping) res.setHeader('connection', 'close');
    const removed = responses.add(res);
    // Absent for a request that did not come through this server's 'connection' (emitted by hand).
    const connection = (req.socket as TrackedSocket)[CONNECTION];
    if (connection) connection.open++;
    res.once('close', () => {
      removed();
      if (!connection) return;
      connection.open--;
      connection.answeredAt = connection.socket.bytesRead;
      // A keep-alive answer whose headers left before the stop: its connection stays open unless closed here.
      if (closingIdle) void afterPoll().then(() => closeIfIdle(connection));
    });
  });

  let stopped: Promise<void> | undefined;
  return (drainMs) =>
    (stopped ??= (async () => {
      stopping = true;
      for (const res of responses) if (!res.headersSent) res.setHeader('connection', 'close');
      const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
      let cut: NodeJS.Timeout | undefined;
      let drainOver = false;
      const drained = setTimeout(() => {
        drainOver = true;
        let late = 0;
        for (const res of responses) {
          if (res.headersSent) continue;
          answerStopping(res);
          late++;
        }
        if (late > 0) logger.warn({ requests: late, drainMs }, 'answered 503 to requests still unanswered when the stop’s drain ended');
        // Connections without a request whose headers are in (a client sending them slowly).
        for (const connection of connections) if (connection.open === 0) connection.socket.destroy();
        cut = setTimeout(() => server.closeAllConnections(), CUT_AFTER_DRAIN_MS).unref();
      }, drainMs).unref();

      // One connection per poll phase: turn until one accepts nothing (bounded, for a flood of new ones, by the drain).
      for (let before = -1; accepted !== before && !drainOver; ) {
        before = accepted;
        await afterPoll();
      }
      stopListening(server);
      await afterPoll();
      closingIdle = true;
      for (const connection of connections) closeIfIdle(connection);
      await closed;
      clearTimeout(drained);
      clearTimeout(cut);
    })());
}

/** 503, as the contract answers a store that does not answer; headers the host had set already (a cookie, say) are not sent. */
function answerStopping(res: ServerResponse): void {
  (res as ServerResponse & { [ANSWERED_BY_STOP]?: true })[ANSWERED_BY_STOP] = true;
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  const answer = errorResponse(503, 'stopping', 'The service is temporarily unavailable', { connection: 'close', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.writeHead(answer.status, answer.headers).end(answer.body);
}

/**
 * Resolves after a poll phase that began after the call: by then libuv has accepted a connection if
 * the listening socket held any, and read every socket that had bytes. (An immediate set during the
 * check phase runs in the next loop turn, after that turn's poll phase, whichever phase the first was
 * set in.)
 */
async function afterPoll(): Promise<void> {
  await nextImmediate();
  await nextImmediate();
}

/**
 * `server.close()` without its first step, `closeIdleConnections()`, which would close connections
 * whose request is unread (the stop closes idle connections itself, after reading them). Node's
 * `http.Server#close` calls it as a method of the server, so it is shadowed for that one call; if a
 * later node stopped calling it so, the stop's tests would show unread requests reset again.
 */
function stopListening(server: Server): void {
  server.closeIdleConnections = () => {};
  try {
    server.close();
  } finally {
    Reflect.deleteProperty(server, 'closeIdleConnections');
  }
}
