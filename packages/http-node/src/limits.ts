/**
 * What one client may hold of the HTTP server: connections, the time it takes to send a request, and
 * the time it may leave a response unread.
 * A server facing the internet directly needs both, or a few slow clients hold every descriptor the
 * process has (slowloris), and the database and every other client go without.
 */
import { readFileSync } from 'node:fs';
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { DEFAULT_IPV6_PREFIX, canonicalIp, clientKey } from '@sl-accounts/service/core';
import type { Logger } from '@sl-accounts/service/http';
import { InFlight } from './in-flight.ts';

/** What one client may hold of the HTTP server (pnpm start reads them from the environment). */
export interface HttpLimits {
  /** From a connection's start (or the end of its last request) until its request headers are in. */
  readonly headersTimeoutMs: number;
  /** From a connection's start (or the end of its last request) until the whole request is in. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  readonly keepAliveTimeoutMs: number;
  /** How long a response may wait with no byte taken by the peer before the connection is cut. */
  readonly unreadResponseTimeoutMs: number;
  /** Most open connections; `undefined`: derived from the process's descriptor limit at start. */
  readonly maxConnections: number | undefined;
  /** Most open connections from one peer address; 0: no cap (the default behind trusted proxies). */
  readonly maxConnectionsPerAddress: number;
}

/** The request timeouts, as node:http's server options. */
export function serverOptions(limits: Pick<HttpLimits, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node enforces both timeouts only when it checks, by default every 30 s: a 10 s bound would
    // really be up to 40 s. Checking every second keeps them near what they say.
    connectionsCheckingInterval: 1_000,
  };
}

/** The soft limit on open files of this process (Linux), or `undefined` where it cannot be read. */
export function openFilesLimit(limitsFile = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.slice('Max open files'.length).trim().split(/\s+/)[0]);
    return Number.isSafeInteger(soft) && soft > 0 ? soft : undefined;
  } catch {
    return undefined;
  }
}

/** Descriptor limit assumed where it cannot be read: the usual default soft limit. */
const ASSUMED_OPEN_FILES = 1_024;

/**
 * The default cap on open connections: the descriptor limit less a tenth of it (at least 128),
 * which stays for the database pool, PGlite's files, logs and Node's own descriptors.
 */
export function defaultMaxConnections(openFiles = openFilesLimit() ?? ASSUMED_OPEN_FILES): number {
  return Math.max(1, openFiles - Math.max(128, Math.ceil(openFiles / 10)));
}

/** How often, at most, refused connections are reported. */
const REPORT_INTERVAL_MS = 60_000;

/**
 * Caps open connections in total (`server.maxConnections`: Node closes any above it as it accepts
 * them) and per peer address (an IPv6 peer by its network, as the rate limits count it): a
 * connection beyond its address's share is closed at once. Refusals
 * are logged as a count, at most once a minute. Returns the total cap in force.
 */
export function limitConnections(server: Server, limits: Pick<HttpLimits, 'maxConnections' | 'maxConnectionsPerAddress'>, logger: Logger, ipv6Prefix: number = DEFAULT_IPV6_PREFIX): number {
  const max = limits.maxConnections ?? defaultMaxConnections();
  server.maxConnections = max;
  const perAddress = limits.maxConnectionsPerAddress;
  const open = new Map<string, number>();
  const refused = { total: 0, perAddress: 0 };
  let lastReport = -Infinity;
  const report = () => {
    const now = performance.now();
    if (now - lastReport < REPORT_INTERVAL_MS) return;
    lastReport = now;
    logger.warn({ refused: { ...refused }, maxConnections: max, maxConnectionsPerAddress: perAddress }, 'refusing connections over the caps');
  };
  server.on('drop', () => {
    refused.total++;
    report();
  });
  if (perAddress === 0) return max;
  server.on('connection', (socket) => {
    // Keyed as the rate limits key clients: an IPv6 subscriber's whole /56 is one peer.
    const remote = socket.remoteAddress ?? '';
    const address = clientKey(canonicalIp(remote) ?? remote, ipv6Prefix);
    const count = (open.get(address) ?? 0) + 1;
    if (count > perAddress) {
      refused.perAddress++;
      socket.destroy();
      report();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = open.get(address)! - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return max;
}

/** How often connections are looked at for a peer that stopped reading. */
const SLOW_READER_CHECK_MS = 1_000;

/**
 * Cuts a connection whose peer stopped taking its response: when the bytes the process holds for it
 * (a response larger than the kernel's send buffer and the peer's window, such as the 4.35 MB docs
 * bundle) have not moved for `limits.unreadResponseTimeoutMs`. node has no such bound: its timeouts
 * cover receiving the request and idle keep-alive connections only, and a peer that stops reading
 * held a connection, its descriptor and the response's buffer for minutes (240 s seen). The cut is a
 * reset, which also drops what the kernel still holds for the peer. Cuts are logged as a count, at
 * most once a minute (any client can cause any number); `onCut` counts each one (the metrics).
 *
 * Progress is a write that completed (`bytesWritten - writableLength` grew) or, inside one large
 * write, bytes the kernel took from it: libuv's `writeQueueSize`, which node does not expose
 * publicly. Without it, one write must complete within the bound; with it, a slow but steady
 * reader is never cut.
 */
export function cutSlowReaders(server: Server, limits: Pick<HttpLimits, 'unreadResponseTimeoutMs'>, logger: Logger, onCut: () => void = () => {}): void {
  const timeout = limits.unreadResponseTimeoutMs;
  const watched = new InFlight<Watched>();
  let cut = 0;
  let lastReport = -Infinity;
  server.on('connection', (socket: Socket) => {
    socket.once('close', watched.add({ socket, sent: 0, queued: 0, since: undefined }));
  });
  const check = () => {
    const now = performance.now();
    for (const w of watched) {
      const { socket } = w;
      const held = socket.writableLength;
      if (held === 0 || socket.destroyed) {
        w.since = undefined;
        continue;
      }
      const sent = socket.bytesWritten - held;
      const queued = (socket as { _handle?: { writeQueueSize?: number } })._handle?.writeQueueSize ?? held;
      if (w.since === undefined || sent > w.sent || queued < w.queued) w.since = now;
      w.sent = sent;
      w.queued = queued;
      if (now - w.since < timeout) continue;
      cut++;
      onCut();
      socket.resetAndDestroy();
      if (now - lastReport >= REPORT_INTERVAL_MS) {
        lastReport = now;
        logger.warn({ cut, unreadResponseTimeoutMs: timeout }, 'cut connections whose peer stopped reading the response');
      }
    }
  };
  const timer = setInterval(check, Math.min(SLOW_READER_CHECK_MS, timeout)).unref();
  server.once('close', () => clearInterval(timer));
}

interface Watched {
  readonly socket: Socket;
  /** Bytes of completed writes at the last check. */
  sent: number;
  /** Bytes libuv still had to hand to the kernel at the last check. */
  queued: number;
  /** Since when nothing moved while bytes were held; `undefined` while nothing is held. */
  since: number | undefined;
}
