/**
 * The server: the service (`createService` of `@sl-accounts/service`, composed from the configuration:
 * the store it names, the hasher at its cost, SMTP or the log, the docs page) on a hardened
 * node:http server (`@sl-accounts/service/http-node`), under whichever request listener the caller makes of
 * the service (the Koa adapter for `pnpm start`, plain node:http in examples/node-http), with
 * metrics when asked for and a graceful stop. Nothing here knows a framework.
 */
import type { RequestListener, Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { DEFAULT_PBKDF2_ITERATIONS, developmentSecretBox, Pbkdf2PasswordHasher, secretBox, type Accounts, type AccountsOptions, type Clock, type SecretBox, type TokenGenerator } from '@sl-accounts/service/core';
import { apiReferencePage } from '@sl-accounts/docs-page';
import type { Logger } from '@sl-accounts/service/http';
import { createNodeServer, deprioritizeThreadPool } from '@sl-accounts/service/http-node';
import { createService, type Service as ComposedService } from '@sl-accounts/service';
import type { Config } from './config.ts';
import { createLogger } from './logger.ts';
import { configuredMail, mailSummary } from './mail.ts';
import { openStore, storeSummary, type ConfiguredStore } from './open-store.ts';
import { listenAdmin } from './admin.ts';
import type { ServiceMetrics } from './metrics.ts';

/** What a request listener serves: the composed service (its `api` answers every path, `/mcp` included). */
export type Service = ComposedService;

/**
 * What the caller runs the service under: a function from the service to a node:http request
 * listener (a Koa app's `callback()`, an Express app, `accounts` of `@sl-accounts/service/http-node`).
 */
export type ListenerFactory = (service: Service) => RequestListener;

/** What `startServer` takes beyond the configuration (tests and benchmarks set these). */
export interface ServerOverrides {
  /** Instead of the configured log (any pino-style logger). */
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Instead of 32 random bytes per token (a test that feeds two servers the same requests makes them agree). */
  readonly tokens?: TokenGenerator;
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

/** A listening server, as `startServer` resolves it. */
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

/** The service as the configuration composes it, before any socket: what `startServer` serves. */
export interface ConfiguredService {
  readonly service: Service;
  readonly logger: Logger;
  /** The Prometheus metrics, when METRICS_PORT asks for them: the server counts its requests and serves them. */
  readonly metrics: ServiceMetrics | undefined;
  /** The connection pool's use, for a Postgres server's metrics. */
  readonly poolStats: ConfiguredStore['poolStats'];
  /** Stops the service (see `Service.close`), then the mailer's connections and the metrics. */
  close(hostStopped?: Promise<unknown>): Promise<void>;
  /** Tells the service the address it listens on (`http://host:port`), where its mailed links land without PUBLIC_URL. */
  listeningAt(url: string): void;
}

/**
 * Composes the service as `pnpm start` runs it (the configured store, migrated; the hasher at its
 * cost; SMTP or the log; the docs page; metrics' observers when asked for), and opens no socket:
 * `startServer` puts it on the hardened node server, and in-process tests call `service.api.handle`.
 */
export async function configureService(config: Config, overrides: ServerOverrides = {}): Promise<ConfiguredService> {
  const logger = overrides.logger ?? createLogger(config);
  if (config.pbkdf2Iterations < DEFAULT_PBKDF2_ITERATIONS) {
    logger.warn({ iterations: config.pbkdf2Iterations }, `PBKDF2_ITERATIONS is below the recommended ${DEFAULT_PBKDF2_ITERATIONS}`);
  }
  const store = await openStore(config.store, logger, config.sessionCache ? { sessionCacheStalenessMs: config.sessionCache.stalenessMs } : {});
  // prom-client is imported only when metrics are asked for (~25 ms of every start otherwise).
  const metrics = config.metrics ? (await import('./metrics.ts')).createServiceMetrics() : undefined;
  // Before the mail's gauge: a scrape collects in this order, and the outbox's depth query would
  // otherwise be the pool's one waiting request at the moment the pool is read.
  if (metrics && store.poolStats) metrics.observePool(store.poolStats);
  const mail = await configuredMail(config.mail, logger, metrics?.observeMail(store.outbox));
  // Mailed links never come from a request: the configured pages, else the service's own pages at
  // PUBLIC_URL, else at this server's own address (known once it listens: PORT=0 picks one).
  let ownAddress = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  const linkBase = config.publicUrl === undefined ? () => ownAddress + config.basePath : config.publicUrl + config.basePath;
  const secrets = await secretsOf(config, store, logger);
  const composed = await createService({
    store,
    // openStore migrated it, and said so if it could not.
    migrate: false,
    hasher: new Pbkdf2PasswordHasher({ iterations: config.pbkdf2Iterations }),
    ...(overrides.clock ? { clock: overrides.clock } : {}),
    ...(overrides.tokens ? { tokens: overrides.tokens } : {}),
    accounts: {
      ipv6Prefix: config.ipv6Prefix,
      accountLoginLimit: config.accountLoginLimit,
      maxSessionsPerUser: config.maxSessionsPerUser,
      newDeviceNoticeLimit: config.newDeviceNoticeLimit,
      ...(config.resetUrl === undefined ? {} : { resetUrl: config.resetUrl }),
      ...(config.verifyUrl === undefined ? {} : { verifyUrl: config.verifyUrl }),
      resetAddressLimit: config.resetAddressLimit,
      inboxLimit: config.inboxLimit,
      securityNotices: config.securityNotices,
      secrets,
      ...(config.totpIssuer === undefined ? {} : { totpIssuer: config.totpIssuer }),
      ...(overrides.rateLimits ? { rateLimits: overrides.rateLimits } : {}),
      ...(config.mail.contactTo === undefined ? {} : { contactTo: config.mail.contactTo }),
      identityProviders: config.identityProviders,
      ...(config.activityRetentionDays === undefined ? {} : { activityRetentionDays: config.activityRetentionDays }),
    },
    logger,
    basePath: config.basePath,
    ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }),
    linkBase,
    trustProxy: config.trustProxy,
    docsPage: apiReferencePage,
    mailer: mail.mailer,
    mail: mail.mail,
    sessionCache: config.sessionCache ?? false,
    ...(overrides.sweepIntervalMs === undefined ? {} : { sweepIntervalMs: overrides.sweepIntervalMs }),
    ...(metrics ? { observeAccounts: (accounts: Accounts) => metrics.observeAccounts(accounts) } : {}),
  }).catch(async (error: unknown) => {
    // Refused (a SECRETS_KEY that does not open what is stored): the store is let go, its lock with it.
    await store.close();
    mail.close();
    await metrics?.close();
    throw error;
  });
  if (metrics && composed.sessionCache) metrics.observeSessionCache(composed.sessionCache.stats);
  let closing: Promise<void> | undefined;
  return {
    service: composed,
    logger,
    metrics,
    poolStats: store.poolStats,
    listeningAt: (url) => void (ownAddress = url),
    close: (hostStopped) =>
      (closing ??= (async () => {
        await composed.close(hostStopped);
        mail.close();
        await metrics?.close();
      })()),
  };
}

/** Starts the service from a configuration; resolves once it listens. */
export async function startServer(config: Config, listenerFor: ListenerFactory, overrides: ServerOverrides = {}): Promise<RunningServer> {
  const configured = await configureService(config, overrides);
  const { service, logger, metrics } = configured;
  const niced = await deprioritizeThreadPool();
  logger.debug({ threads: niced }, 'thread pool runs below the event loop');
  const { api, accounts } = service;
  const node = createNodeServer(listenerFor(service), { limits: config.http, logger, ipv6Prefix: config.ipv6Prefix, ...(metrics ? { onSlowReaderCut: metrics.slowReaderCut } : {}) });
  const { server, maxConnections } = node;
  if (metrics) {
    // Labelled as requested: under a base path, its paths (`/accounts/api/me`); the root documents too.
    const served = api.basePath ? [api.basePath, ...api.paths.map((path) => api.basePath + path), ...api.paths.filter((path) => path.startsWith('/.well-known/'))] : api.paths;
    metrics.observeRequests(server, served);
  }
  let metricsUrl: string | undefined;
  let admin: Awaited<ReturnType<typeof listenAdmin>> | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    if (metrics && config.metrics) metricsUrl = await metrics.listen(config.metrics);
    if (config.admin) admin = await listenAdmin(service.admin, config.admin, logger);
  } catch (error) {
    server.close();
    await admin?.close();
    await configured.close();
    throw error;
  }
  const { address, port } = server.address() as AddressInfo;
  // A HOST given as a name (localhost) stays a name: passkeys are bound to one (WebAuthn refuses IP
  // addresses), and the pages' origin is what the browser was pointed at.
  // A loopback address is printed and used as `localhost`: the same machine, and a name, where
  // browsers allow passkeys (they refuse an IP address as the relying party).
  const listened = isIP(config.host) === 0 && config.host !== '' ? config.host : isLoopback(address) ? 'localhost' : address;
  const url = `http://${listened.includes(':') ? `[${listened}]` : listened}:${port}`;
  configured.listeningAt(url);
  const relyingParty = new URL(config.publicUrl ?? url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(relyingParty) !== 0) {
    logger.warn({ origin: config.publicUrl ?? url }, `passkeys cannot work at ${config.publicUrl ?? url}: browsers refuse an IP address as the relying party; set PUBLIC_URL to a name (e.g. http://localhost:${port}, or your domain)`);
  }
  const unaddressed = publicUrlWarning(config, url);
  if (unaddressed) logger.warn({}, unaddressed);
  logger.info(
    {
      url,
      ...storeSummary(config.store),
      docs: `${url}${config.basePath}/docs/api`,
      ...(metricsUrl ? { metrics: metricsUrl } : {}),
      ...(admin ? { admin: admin.url, operators: config.admin!.tokens.map((t) => t.name) } : {}),
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
        // Keep-alive clients leave once their answer is written, instead of holding the stop up; the
        // service stops its mail worker meanwhile and closes the store once the requests are done.
        await configured.close(Promise.all([node.close(DRAIN_MS), admin?.close()]));
      })()),
  };
}

/**
 * A production server without PUBLIC_URL mails links to the address it listens on, which its users
 * rarely reach, and renders its discovery documents for each request's Host: each new Host past the
 * 16 a process keeps costs a rendering (~10 ms of CPU for the OpenAPI document). It starts, with
 * this warning; `undefined` when PUBLIC_URL is set or outside production.
 */
export function publicUrlWarning(config: Pick<Config, 'production' | 'publicUrl' | 'resetUrl' | 'verifyUrl' | 'basePath'>, url: string): string | undefined {
  if (!config.production || config.publicUrl) return undefined;
  const mailed = config.resetUrl && config.verifyUrl ? '' : `mailed links point at ${url}${config.basePath}, and `;
  return `PUBLIC_URL is not set: ${mailed}the discovery documents follow each request's Host (each new one is rendered anew); set PUBLIC_URL to the address your users reach (e.g. https://accounts.example.org)`;
}

/** 127.0.0.0/8 and ::1 (also as an IPv4-mapped address). */
function isLoopback(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

/**
 * The box that seals second factors' secrets (docs/decisions/0044-step-up-and-secrets-at-rest.md):
 * SECRETS_KEY's; without it, in production, none (TOTP enrolment answers 503), and the start is
 * refused while any account has TOTP on (its codes could not be checked: its owner would be left
 * with recovery codes only); outside production, the development box, with a warning.
 */
export async function secretsOf(config: Config, store: { readonly totp: { countEnabled(): Promise<number> }; close(): Promise<void> }, logger: { warn(obj: object, msg: string): void }): Promise<SecretBox | null> {
  if (config.secretsKey !== undefined) return secretBox(config.secretsKey);
  if (!config.production) {
    logger.warn({}, 'SECRETS_KEY is not set: TOTP secrets are sealed with the development key, which protects nothing (set SECRETS_KEY=$(openssl rand -base64 32) in production)');
    return developmentSecretBox();
  }
  const enabled = await store.totp.countEnabled();
  if (enabled > 0) {
    await store.close();
    throw new Error(`SECRETS_KEY is not set, and ${enabled} account(s) have TOTP on: their codes cannot be checked without it. Set SECRETS_KEY to the key they were enrolled under.`);
  }
  return null;
}
