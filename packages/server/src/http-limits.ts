/**
 * What one client may hold of the HTTP server: connections and the time it takes to send a request.
 * A server facing the internet directly needs both, or a few slow clients hold every descriptor the
 * process has (slowloris), and the database and every other client go without.
 */
import { readFileSync } from 'node:fs';
import type { Server, ServerOptions } from 'node:http';
import { DEFAULT_IPV6_PREFIX, canonicalIp, clientKey } from '@sl/core';
import type { Logger } from 'pino';
import type { HttpLimits } from './config.ts';

/** The request timeouts, as node:http's server options. */
export function serverOptions(limits: HttpLimits): ServerOptions {
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
export function limitConnections(server: Server, limits: HttpLimits, logger: Logger, ipv6Prefix: number = DEFAULT_IPV6_PREFIX): number {
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
