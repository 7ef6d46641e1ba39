/**
 * The composition root: from a configuration to a listening server. It picks the store, wires the
 * core, the HTTP contract and the MCP endpoint, and runs them on a hardened node:http server
 * (@sl-accounts/http-node) under whichever request listener the caller makes of the service (the
 * Koa adapter for `pnpm start`, plain node:http in examples/node-http), with housekeeping and a
 * graceful stop. Nothing here knows a framework.
 */
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DEFAULT_PBKDF2_ITERATIONS,
  Pbkdf2PasswordHasher,
  cacheSessions,
  createAccounts,
  randomTokens,
  startHousekeeping,
  systemClock,
  type Accounts,
  type AccountsOptions,
  type Clock,
} from '@sl-accounts/core';
import { discoveryDocuments } from '@sl-accounts/discovery';
import { API_REFERENCE_PATH, apiReferencePage } from '@sl-accounts/docs-page';
import { createHttpApi, type HttpApi, type Logger } from '@sl-accounts/http';
import { createNodeServer, deprioritizeThreadPool } from '@sl-accounts/http-node';
import { createMcpEndpoint, type McpEndpoint } from '@sl-accounts/mcp';
import type { Config } from './config.ts';
import { createLogger } from './logger.ts';
import { mailSummary, startMail } from './mail.ts';
import { openStore, storeSummary } from './open-store.ts';

/** What a request listener serves: the use cases, the HTTP contract over them, the MCP endpoint, and the server's log (the contract's `Logger` shape; pino's logger in `pnpm start`). */
export interface Service {
  readonly accounts: Accounts;
  readonly api: HttpApi;
  readonly mcp: McpEndpoint;
  readonly logger: Logger;
}

/**
 * What the caller runs the service under: a function from the service to a node:http request
 * listener (a Koa app's `callback()`, an Express app, `nodeListener` of @sl-accounts/http-node).
 */
export type ListenerFactory = (service: Service) => RequestListener;

export interface ServerOverrides {
  /** Instead of the configured log (any pino-style logger). */
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly rateLimits?: AccountsOptions['rateLimits'];
  /** How often expired sessions and limiter windows are swept; default one minute. */
  readonly sweepIntervalMs?: number;
}

/**
 * On stop, how long requests in flight may take to finish; those still unanswered then are answered
 * 503 by the server, and connections still open 250 ms later are cut. Longer than the default
 * database bound, so a request waiting on a silent database gets the store's 503 first; short enough
 * that, with the store's own bounded close, the process is gone within 10 s.
 */
const DRAIN_MS = 7_000;

/**
 * On stop, how long a mail being sent may take to finish (its result recorded) before the store
 * closes; a send still running then is retried later, by this or another process, with the same
 * Message-ID. Within DRAIN_MS, which runs at the same time, so it adds nothing to the stop.
 */
const MAIL_STOP_MS = 5_000;

export interface RunningServer {
  /** `http://host:port` the server listens on. */
  readonly url: string;
  /** `http://host:port/metrics` when METRICS_PORT is set. */
  readonly metricsUrl: string | undefined;
  readonly server: Server;
  readonly accounts: Accounts;
  readonly logger: Logger;
  /**
   * Stops, answering every request that reached the socket (503 for those still unanswered after
   * 7 s; see createNodeServer's close), then closes the store. Resolves within about 9 s, whatever
   * the database does.
   */
  close(): Promise<void>;
}

export async function startServer(config: Config, listenerFor: ListenerFactory, overrides: ServerOverrides = {}): Promise<RunningServer> {
  const logger = overrides.logger ?? createLogger(config);
  if (config.pbkdf2Iterations < DEFAULT_PBKDF2_ITERATIONS) {
    logger.warn({ iterations: config.pbkdf2Iterations }, `PBKDF2_ITERATIONS is below the recommended ${DEFAULT_PBKDF2_ITERATIONS}`);
  }
  const niced = await deprioritizeThreadPool();
  logger.debug({ threads: niced }, 'thread pool runs below the event loop');
  const store = await openStore(config.store, logger, config.sessionCache ? { sessionCacheStalenessMs: config.sessionCache.stalenessMs } : {});
  // prom-client is imported only when metrics are asked for (~25 ms of every start otherwise).
  const metrics = config.metrics ? (await import('./metrics.ts')).createServiceMetrics() : undefined;
  // Sessions are answered from memory while the store's revocation feed is caught up (see cacheSessions).
  const sessions = config.sessionCache ? cacheSessions(store.sessions, store.revocations, config.sessionCache) : undefined;
  const clock = overrides.clock ?? systemClock;
  // The reset link never comes from a request: the configured page, else this server's own address.
  const resetUrl = config.resetUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}/reset-password`;
  const created = createAccounts(
    { ...store, ...(sessions ? { sessions } : {}), hasher: new Pbkdf2PasswordHasher({ iterations: config.pbkdf2Iterations }), clock, tokens: randomTokens },
    {
      ipv6Prefix: config.ipv6Prefix,
      accountLoginLimit: config.accountLoginLimit,
      maxSessionsPerUser: config.maxSessionsPerUser,
      resetUrl,
      resetAddressLimit: config.resetAddressLimit,
      onBackgroundError: (err) => logger.error({ err }, 'a password reset request could not be stored; no mail was queued'),
      ...(overrides.rateLimits ? { rateLimits: overrides.rateLimits } : {}),
      ...(config.mail.contactTo === undefined ? {} : { contactTo: config.mail.contactTo }),
    },
  );
  const accounts = metrics ? metrics.observeAccounts(created) : created;
  const shared = { accounts, logger, trustProxy: config.trustProxy, publicUrl: config.publicUrl, basePath: config.basePath };
  const mcp = createMcpEndpoint({ ...shared, websitePath: API_REFERENCE_PATH });
  const api = createHttpApi({ ...shared, documents: discoveryDocuments({ publicUrl: config.publicUrl, basePath: config.basePath, docsPage: apiReferencePage, extra: mcp.documents }) });
  const service = { accounts, api, mcp, logger };
  const node = createNodeServer(listenerFor(service), { limits: config.http, logger, ipv6Prefix: config.ipv6Prefix, ...(metrics ? { onSlowReaderCut: metrics.slowReaderCut } : {}) });
  const { server, maxConnections } = node;
  if (metrics) {
    // Labelled as requested: under a base path, its paths (`/accounts/api/me`); the root documents too.
    const served = api.basePath ? [api.basePath, ...api.paths.map((path) => api.basePath + path), ...api.paths.filter((path) => path.startsWith('/.well-known/'))] : api.paths;
    metrics.observeRequests(server, [...served, mcp.path]);
    if (store.poolStats) metrics.observePool(store.poolStats);
    if (sessions) metrics.observeSessionCache(sessions.stats);
  }
  let metricsUrl: string | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    if (metrics && config.metrics) metricsUrl = await metrics.listen(config.metrics);
  } catch (error) {
    server.close();
    sessions?.close();
    await Promise.all([store.close(), metrics?.close()]);
    throw error;
  }
  const housekeeping = startHousekeeping(() => accounts.sweep(), {
    intervalMs: overrides.sweepIntervalMs ?? 60_000,
    onError: (err) => logger.warn({ err }, 'sweep failed'),
  });
  const mail = await startMail(config.mail, store.outbox, clock, logger, metrics?.observeMail(store.outbox));
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  logger.info(
    {
      url,
      ...storeSummary(config.store),
      docs: `${url}${config.basePath}/docs/api`,
      ...(metricsUrl ? { metrics: metricsUrl } : {}),
      mail: mailSummary(config.mail),
      contactTo: config.mail.contactTo ?? null,
      maxConnections,
      maxConnectionsPerAddress: config.http.maxConnectionsPerAddress,
    },
    'listening',
  );

  let closing: Promise<void> | undefined;
  return {
    url,
    metricsUrl,
    server,
    accounts,
    logger,
    close: () =>
      (closing ??= (async () => {
        // No new mail is claimed from now; the one being sent finishes while requests drain.
        const mailStopped = mail.stop(MAIL_STOP_MS);
        // Keep-alive clients leave once their answer is written, instead of holding the stop up.
        await node.close(DRAIN_MS);
        // Together: closing a database that does not answer also ends a sweep waiting on it.
        // Reset requests answered before the stop still write their token and mail.
        await accounts.settled();
        sessions?.close();
        // The mail's result is written before the store closes (or, past its bound, left to the lease).
        await mailStopped;
        await Promise.all([housekeeping.stop(), store.close(), metrics?.close()]);
      })()),
  };
}
