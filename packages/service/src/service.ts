/**
 * `createService`: the whole account and contact service composed over a store, with no socket.
 * The use cases, the HTTP contract with its documents, the MCP endpoint, the session cache, the
 * housekeeping sweep and the mail worker, each with a default; a host mounts `api` (or calls
 * `api.handle` in a test), and `close()` stops what runs in the background and closes the store.
 */
import {
  DEFAULT_SERVICE_NAME,
  cacheSessions,
  createAccounts,
  createAdmin,
  type AdminUseCases,
  startHousekeeping,
  systemClock,
  type Accounts,
  type AccountsOptions,
  type IdentityProviderOptions,
  type Clock,
  type Mailer,
  type PasswordHasher,
  type SessionCacheOptions,
  type SessionCacheStats,
  type Store,
  type TokenGenerator,
} from '@sl-accounts/service/core';
import { RESET_PAGE_PATH, VERIFY_PAGE_PATH, discoveryDocuments, type DocsPage } from '@sl-accounts/service/discovery';
import { createHttpApi, normaliseBasePath, requestBase, silentLogger, type FetchHandler, type HttpApi, type Logger } from '@sl-accounts/service/http';
import { createMcpEndpoint, type McpEndpoint } from '@sl-accounts/service/mcp';
import { defaultMailer, startMail, type MailOptions } from './mail.ts';
import { checkServiceOptions } from './options.ts';
import { settleSecrets } from './secrets.ts';

/** A store as `createService` takes it: any `Store`, and one that migrates its schema (the SQL stores) is migrated first. */
export type ServiceStore = Store & { migrate?(): Promise<readonly string[]> };

/** `createService`'s options: the store, and whatever else is not to be the default. */
export interface ServiceOptions {
  /**
   * Where accounts, sessions, limits and mails live: `createMemoryStore()` of
   * `@sl-accounts/store-memory`, `createSQLiteStore(...)` of `@sl-accounts/store-sqlite` (one
   * process), `createPostgresStore(...)` or `createPGliteStore(...)` of `@sl-accounts/store-postgres`. The service migrates it (when it can) and `close()` closes it.
   */
  readonly store: ServiceStore;
  /** Default: PBKDF2-SHA256 at 600,000 iterations. Tests pass a cheap one (`@sl-accounts/service/core/testing`). */
  readonly hasher?: PasswordHasher;
  /** Default: the system clock. Tests pass a `ManualClock` to move time without waiting. */
  readonly clock?: Clock;
  /** Default: 32 bytes from the CSPRNG, base64url. */
  readonly tokens?: TokenGenerator;
  /** The use cases' options: limits, reset link, the operator's address for contact mail, session cap. */
  readonly accounts?: AccountsOptions;
  /**
   * Identity providers people may sign in through (issue 42): OpenID Connect issuers and GitHub, as
   * `accounts.identityProviders` takes them (and added to those). Their redirect URI is
   * `<publicUrl><basePath>/api/sign-in/<id>/callback` (or under the host's mount).
   */
  readonly identityProviders?: readonly IdentityProviderOptions[];
  /** Where the service logs (pino's logger fits); default nowhere. */
  readonly logger?: Logger;
  /** The path the service is mounted under (e.g. `/accounts`); default the root. */
  readonly basePath?: string;
  /**
   * The service's absolute origin (`https://accounts.example.org`): the one origin browsers may post
   * from, and the base of every link in the documents; default each request's own (checked) origin.
   */
  readonly publicUrl?: string;
  /**
   * Where mailed links land when `accounts.verifyUrl` / `accounts.resetUrl` are not given: the
   * absolute URL under which the service's own pages (`/verify-email`, `/reset-password`) are
   * reached, taken as it is. Default: `publicUrl` (else `http://localhost`), then the request's base
   * as the device cookie's path has it: a host's mount, then `basePath` (ADR 52). Give it only
   * when the pages are reached elsewhere (a proxy that rewrites the path), with the whole prefix
   * (`https://example.org/accounts`). A function is asked at each mail (a server that learns its
   * own address once it listens).
   */
  readonly linkBase?: string | (() => string);
  /**
   * How many proxies in front of the host to believe (0 to 32): the client address for the rate
   * limits, and the origin of the documents, come from that many hops of `X-Forwarded-For`,
   * `X-Forwarded-Host` and `X-Forwarded-Proto`. Default 0: the socket's own address, the headers
   * ignored. Behind a proxy, leave it 0 and every client is the proxy (one rate limit for all).
   */
  readonly trustProxy?: number;
  /**
   * The `/docs/api` page: `apiReferencePage` of `@sl-accounts/docs-page`. Absent (the default),
   * there is no page, nothing links to one, and Scalar is never installed.
   */
  readonly docsPage?: DocsPage;
  /** `/mcp` (served by `api`) and its server card; default on. `false`: neither is served, and the MCP SDK is never loaded. */
  readonly mcp?: boolean;
  /**
   * Where the outbox's mails go: `createSmtpMailer(...)` of `@sl-accounts/service/mail-smtp`. Default, for
   * development only: no mail is sent, and the service says so once; each mail (reset links
   * included) is written to `logger` at info, or without a logger to standard error.
   */
  readonly mailer?: Mailer;
  /** How the outbox worker sends: Message-ID domain, poll interval, lease, retries, hooks. */
  readonly mail?: MailOptions;
  /**
   * The in-process cache of known sessions in front of the store (see `cacheSessions`); default on
   * with its defaults. `false` turns it off (every `/api/me` asks the store).
   */
  readonly sessionCache?: SessionCacheOptions | false;
  /** How often expired sessions, reset tokens and limiter windows are deleted: 1 s to a day; default one minute. */
  readonly sweepIntervalMs?: number;
  /**
   * Wraps the use cases before the contract and MCP see them (metrics watch them this way).
   * Default: they are used as they are.
   */
  readonly observeAccounts?: (accounts: Accounts) => Accounts;
  /** Whether the store is migrated first, when it can be; default true. */
  readonly migrate?: boolean;
  /**
   * How long a request body may take to arrive through `fetch`, from its first read, before the
   * answer is 408 `request_timeout`: default 30 s; 0 for no bound. (On node:http the server's own
   * `requestTimeout` bounds the whole request.)
   */
  readonly bodyTimeoutMs?: number;
}

/** The composed service; nothing listens until a host mounts `api`. */
export interface Service {
  /** The use cases, for a host's own routes or scripts. */
  readonly accounts: Accounts;
  /** The operator's use cases (find, lock, unlock, end sessions, …): what the admin API and the CLI call. */
  readonly admin: AdminUseCases;
  /** The HTTP contract: `api.handle(request)` answers every operation, document and `/mcp` request; mount it with a host adapter. */
  readonly api: HttpApi;
  /**
   * The service as a web-standard handler (`api.fetch`), for hosts that speak `Request` and
   * `Response`: `Bun.serve({ fetch: (req, server) => service.fetch(req, { clientAddress:
   * server.requestIP(req)?.address }) })`. Every operation, document and `/mcp`, by the same rules as
   * on node. A function of its own (no `this`), so it can be passed as it is.
   */
  readonly fetch: FetchHandler;
  /** The MCP endpoint that `api` serves at `<basePath>/mcp` (unless `mcp: false`), for a host that wants its web-standard `fetch`. */
  readonly mcp: McpEndpoint | undefined;
  readonly logger: Logger;
  /**
   * Stops the service: no new mail is claimed (a send under way may finish, for up to 5 s), work
   * started after earlier answers finishes, the sweep stops and the store closes. `hostStopped` is
   * the host's own stop (its requests draining): it runs beside the mail's, and the store closes
   * only after it. Call it once the host takes no more requests. Idempotent.
   */
  close(hostStopped?: Promise<unknown>): Promise<void>;
  /** The session cache in front of the store, when on: its hit counts and size (for metrics). */
  readonly sessionCache: { stats(): SessionCacheStats } | undefined;
}

/**
 * On stop, how long a mail being sent may take to finish (its result recorded) before the store
 * closes; a send still running then is retried later, by this or another process, with the same
 * Message-ID.
 */
const MAIL_STOP_MS = 5_000;

/**
 *   const service = await createService({ store: createMemoryStore() });
 *   const answer = await service.api.handle(request);
 */
export async function createService(options: ServiceOptions): Promise<Service> {
  checkServiceOptions(options);
  const { store, logger = silentLogger } = options;
  if (options.migrate !== false && store.migrate) {
    const applied = await store.migrate();
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrated the database');
  }
  const secrets = await settleSecrets(options.accounts?.secrets, store, (message) => warnOnce(logger, options.logger, message));
  const clock = options.clock ?? systemClock;
  // Sessions are answered from memory while the store's revocation feed is caught up (see cacheSessions).
  const sessions = options.sessionCache === false ? undefined : cacheSessions(store, options.sessionCache);
  const basePath = normaliseBasePath(options.basePath);
  // Mailed links: the operator's front end when configured, else the service's own pages, which it then serves.
  const origin = options.publicUrl ?? 'http://localhost';
  const linkBase = options.linkBase ?? `${origin}${basePath}`;
  // A configured linkBase is taken as it is (it names the prefix itself); else the links follow a
  // host's mount as the device cookie does: the configured origin, then the request's mount and
  // basePath (a path from '/', so the origin stays the configured one).
  const ownPage = (path: string): string | (() => string) => {
    if (typeof linkBase === 'function') return () => `${linkBase()}${path}`;
    if (options.linkBase !== undefined) return `${linkBase}${path}`;
    return () => `${origin}${requestBase() ?? basePath}${path}`;
  };
  const resetUrl = options.accounts?.resetUrl ?? ownPage(RESET_PAGE_PATH);
  const verifyUrl = options.accounts?.verifyUrl ?? ownPage(VERIFY_PAGE_PATH);
  // Passkeys belong to the origin the pages run on: the configured one, else the links' (PUBLIC_URL,
  // or the server's own address). Without either, none: `http://localhost` (no port) is no page's
  // origin, and a request's Host is whatever the client sent (docs/decisions/0048-startup-checks.md).
  const passkeyOrigin = options.accounts?.passkeyOrigin ?? (options.publicUrl === undefined && options.linkBase === undefined ? null : linkBase);
  const linkPages = { reset: options.accounts?.resetUrl === undefined, verify: options.accounts?.verifyUrl === undefined, passkeys: true };
  if (options.mailer && options.linkBase === undefined && options.publicUrl === undefined && (linkPages.reset || linkPages.verify)) {
    // Mail really goes out, and its links would name no host a reader can reach.
    warnOnce(logger, options.logger, `mailed links point at ${linkBase}: pass createService publicUrl (or linkBase, or accounts.resetUrl and accounts.verifyUrl) so that they reach your users`);
  }
  const created = createAccounts(
    {
      store: sessions?.store ?? store,
      clock,
      ...(options.hasher ? { hasher: options.hasher } : {}),
      ...(options.tokens ? { tokens: options.tokens } : {}),
    },
    { onBackgroundError: (err) => logger.error({ err }, 'a password reset request could not be stored; no mail was queued'), ...options.accounts, resetUrl, verifyUrl, passkeyOrigin, secrets, identityProviders: [...(options.accounts?.identityProviders ?? []), ...(options.identityProviders ?? [])] },
  );
  const accounts = options.observeAccounts ? options.observeAccounts(created) : created;
  // The operator's use cases (issue 43) over the same store and rules: the admin API and the CLI adapt them.
  const admin = createAdmin(
    { store: sessions?.store ?? store, clock, ...(options.hasher ? { hasher: options.hasher } : {}), ...(options.tokens ? { tokens: options.tokens } : {}) },
    { ...options.accounts, resetUrl, verifyUrl, passkeyOrigin, secrets },
  );
  const serviceName = options.accounts?.serviceName;
  const docsPage = options.docsPage;
  // The card names the page (its `websiteUrl`) only when there is one.
  const websitePath = docsPage?.({ serviceName: serviceName ?? DEFAULT_SERVICE_NAME, basePath }).page.path;
  const mcp =
    options.mcp === false
      ? undefined
      : createMcpEndpoint({ accounts, logger, publicUrl: options.publicUrl, ...(serviceName === undefined ? {} : { serviceName }), ...(websitePath ? { websitePath } : {}) });
  // Built for each base path the service is served under: its own, and any prefix a host's router mounts it at.
  const documents = (base: string) =>
    discoveryDocuments({
      publicUrl: options.publicUrl,
      basePath: base,
      ...(serviceName === undefined ? {} : { serviceName }),
      docsPage,
      linkPages,
      extra: mcp?.documents(base),
    });
  const api = createHttpApi({
    accounts,
    logger,
    trustProxy: options.trustProxy ?? 0,
    publicUrl: options.publicUrl,
    basePath,
    documents,
    mcp,
    ...(options.bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs: options.bodyTimeoutMs }),
    // Reset requests write their mail after the answer; then the outbox is sent without its poll.
    settled: async () => {
      await accounts.settled();
      await mail.flush();
    },
    warn: (message) => warnOnce(logger, options.logger, message),
  });

  const housekeeping = startHousekeeping(() => accounts.sweep(), {
    intervalMs: options.sweepIntervalMs ?? 60_000,
    onError: (err) => logger.warn({ err }, 'sweep failed'),
  });
  const mail = startMail(store.outbox, options.mailer ?? defaultMailer(options.logger), clock, logger, options.mail);

  let closing: Promise<void> | undefined;
  return {
    accounts,
    admin,
    api,
    fetch: api.fetch,
    mcp,
    logger,
    sessionCache: sessions,
    close: (hostStopped) =>
      (closing ??= (async () => {
        // No new mail is claimed from now; the one being sent finishes while the host drains.
        const mailStopped = mail.stop(MAIL_STOP_MS);
        await hostStopped;
        // Reset requests answered before the stop still write their token and mail.
        await accounts.settled();
        sessions?.close();
        // The mail's result is written before the store closes (or, past its bound, left to the lease).
        await mailStopped;
        // Together: closing a database that does not answer also ends a sweep waiting on it.
        await Promise.all([housekeeping.stop(), store.close()]);
      })()),
  };
}

/** Says it once, at warn: to the given logger, else to standard error (a silent default logger must not swallow it). */
function warnOnce(logger: Logger, given: Logger | undefined, message: string): void {
  if (given) logger.warn({}, message);
  else process.stderr.write(`sl-accounts: ${message}\n`);
}
