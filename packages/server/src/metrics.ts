/**
 * Prometheus metrics (prom-client) on a port of their own, for the operators: requests by route and
 * status, their latency, refusals by the rate limits, failed logins, a store that does not answer,
 * the database pool, and the process. Off unless METRICS_PORT is set; when off, this module is not
 * even loaded.
 * The core and the HTTP contract know nothing of it: it watches the node:http server and wraps the
 * use cases from outside.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ACCOUNT_LOGIN_POLICY, DEVICE_LOGIN_POLICY, INBOX_POLICY, MAIL_KINDS, PROFILE_SESSION_POLICY, SESSION_PASSWORD_POLICY, isDomainError, type Accounts, type DroppedMail, type MailOutbox, type SessionCacheStats } from '@sl-accounts/service/core';
import { pathPattern, requestPath } from '@sl-accounts/service/http';
import type { PoolStats } from '@sl-accounts/store-postgres';
import type { MetricsConfig } from './config.ts';

/** Every metric's name starts with this. */
export const METRICS_PREFIX = 'sl_accounts_';

/** Methods counted by name; anything else (node accepts a few dozen more) is `other`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The label of a request to a path the service does not serve: unknown paths never become labels. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface ServiceMetrics {
  /** `accounts`, reporting rate-limit refusals, failed logins and a store that did not answer. */
  observeAccounts(accounts: Accounts): Accounts;
  /** Counts and times every response of `server`, labelled by `routes` (others: `unmatched`). */
  observeRequests(server: Server, routes: Iterable<string>): void;
  /** Reports the database pool's use at each scrape. */
  observePool(stats: () => PoolStats): void;
  /** Reports the session cache's lookups and size at each scrape. */
  observeSessionCache(stats: () => SessionCacheStats): void;
  /** Counts a connection cut because its peer stopped reading the response. */
  readonly slowReaderCut: () => void;
  /** Reports the outbox's depth at each scrape; returns the hooks that count sent mails, failed attempts and dropped mails. */
  observeMail(outbox: MailOutbox): { onSent(): void; onAttemptFailed(): void; onDropped(mail: DroppedMail): void };
  /** Serves `GET /metrics` on `config`'s address; resolves with the metrics URL. */
  listen(config: MetricsConfig): Promise<string>;
  close(): Promise<void>;
}

export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const requests = new Counter({
    name: `${METRICS_PREFIX}http_requests_total`,
    help: 'HTTP responses sent, by route (the path the service serves, or "unmatched"), method and status.',
    labelNames: ['route', 'method', 'status'],
    registers,
  });
  const latency = new Histogram({
    name: `${METRICS_PREFIX}http_request_duration_seconds`,
    help: 'Time from a request to its response being written, by route and method.',
    labelNames: ['route', 'method'],
    // From a cached document (well under a millisecond) to a login at the default work factor (~0.4 s) and a 503 at the database bound (5 s).
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const rateLimited = new Counter({
    name: `${METRICS_PREFIX}rate_limited_total`,
    help: 'Requests refused by a rate limit (429, or an MCP tool error), by operation and by limit: "ip" (per client), "account" (failed logins per e-mail address), "device" (a device cookie\'s own failed logins), "session" (a session\'s own password checks or changes of name) or "inbox" (the mail an address\'s inbox may still be sent this hour).',
    labelNames: ['operation', 'limit'],
    registers,
  });
  const loginFailures = new Counter({
    name: `${METRICS_PREFIX}login_failures_total`,
    help: 'Logins refused for a wrong e-mail address or password (401).',
    registers,
  });
  const storeUnavailable = new Counter({
    name: `${METRICS_PREFIX}store_unavailable_total`,
    help: 'Use cases that failed because the store did not answer (a 503, or a health check answering "unavailable"), by use case.',
    labelNames: ['use_case'],
    registers,
  });

  function noteFailure(useCase: string, error: unknown): void {
    if (!isDomainError(error)) return;
    switch (error.code) {
      case 'rate_limited': {
        const { policy } = error.rateLimit;
        const limit =
          policy === ACCOUNT_LOGIN_POLICY
            ? 'account'
            : policy === DEVICE_LOGIN_POLICY
              ? 'device'
              : policy === SESSION_PASSWORD_POLICY || policy === PROFILE_SESSION_POLICY
                ? 'session'
                : policy === INBOX_POLICY
                  ? 'inbox'
                  : 'ip';
        rateLimited.inc({ operation: useCase, limit });
        return;
      }
      case 'invalid_credentials':
        loginFailures.inc();
        return;
      case 'store_unavailable':
        storeUnavailable.inc({ use_case: useCase });
        return;
      default:
    }
  }

  /** A use case that reports its failures and rethrows them. */
  function watched<A extends unknown[], R>(useCase: string, run: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args) => {
      try {
        return await run(...args);
      } catch (error) {
        noteFailure(useCase, error);
        throw error;
      }
    };
  }

  const slowReaders = new Counter({
    name: `${METRICS_PREFIX}slow_readers_cut_total`,
    help: 'Connections cut because the peer took no byte of its response for UNREAD_RESPONSE_TIMEOUT_MS.',
    registers,
  });

  let server: Server | undefined;
  return {
    slowReaderCut: () => slowReaders.inc(),
    observeAccounts(accounts) {
      return {
        ...accounts,
        signup: watched('signup', accounts.signup),
        login: watched('login', accounts.login),
        logout: watched('logout', accounts.logout),
        me: watched('me', accounts.me),
        contact: watched('contact', accounts.contact),
        sweep: watched('sweep', accounts.sweep),
        listSessions: watched('listSessions', accounts.listSessions),
        endSession: watched('endSession', accounts.endSession),
        changePassword: watched('changePassword', accounts.changePassword),
        requestPasswordReset: watched('requestPasswordReset', accounts.requestPasswordReset),
        confirmPasswordReset: watched('confirmPasswordReset', accounts.confirmPasswordReset),
        deleteAccount: watched('deleteAccount', accounts.deleteAccount),
        // Health never throws: a store that does not answer makes it report "unavailable".
        health: async () => {
          const health = await accounts.health();
          if (!health.ok) storeUnavailable.inc({ use_case: 'health' });
          return health;
        },
      };
    },

    observeRequests(http, routes) {
      const known = new Set(routes);
      // A path with `{name}` segments is one label, whatever the segments hold.
      const templates = [...known].filter((r) => r.includes('{')).map((r) => ({ route: r, pattern: pathPattern(r).pattern }));
      const labelOf = (path: string) => (known.has(path) ? path : (templates.find((t) => t.pattern.test(path))?.route ?? UNMATCHED_ROUTE));
      http.on('request', (req, res) => {
        const start = performance.now();
        res.once('finish', () => {
          const path = requestPath(req.url ?? '/');
          const route = labelOf(path);
          const method = METHODS.has(req.method ?? '') ? req.method! : 'other';
          requests.inc({ route, method, status: String(res.statusCode) });
          latency.observe({ route, method }, (performance.now() - start) / 1000);
        });
      });
    },

    observePool(stats) {
      // Read at each scrape; only a store with a pool (a Postgres server) has these.
      const gauge = (key: keyof PoolStats, name: string, help: string) =>
        new Gauge({
          name: `${METRICS_PREFIX}${name}`,
          help,
          registers,
          collect() {
            this.set(stats()[key]);
          },
        });
      gauge('total', 'db_pool_connections', 'Connections the database pool holds open, idle or busy.');
      gauge('idle', 'db_pool_idle_connections', 'Open pool connections not in use.');
      gauge('waiting', 'db_pool_waiting_requests', 'Statements waiting for a pool connection.');
    },

    observeSessionCache(stats) {
      new Counter({
        name: `${METRICS_PREFIX}session_cache_lookups_total`,
        help: 'Session lookups by outcome: answered from memory (hit), asked the store (miss), or asked the store because the revocation feed lagged (bypassed).',
        labelNames: ['result'],
        registers,
        collect() {
          const { hits, misses, bypassed } = stats();
          this.reset();
          this.inc({ result: 'hit' }, hits);
          this.inc({ result: 'miss' }, misses);
          this.inc({ result: 'bypassed' }, bypassed);
        },
      });
      new Gauge({
        name: `${METRICS_PREFIX}session_cache_entries`,
        help: 'Sessions the cache holds.',
        registers,
        collect() {
          this.set(stats().entries);
        },
      });
    },

    observeMail(outbox) {
      new Gauge({
        name: `${METRICS_PREFIX}mail_outbox_depth`,
        help: 'Mails waiting in the outbox: due, being sent, or waiting for a retry. Growing while mail_send_failures_total grows: the SMTP server is not taking mail.',
        registers,
        async collect() {
          // A scrape reads every gauge in one turn, in the order they were made. This statement
          // starts after that turn, so the pool's gauges never count it as waiting for a connection.
          await new Promise((resolve) => setImmediate(resolve));
          // A store that does not answer leaves the last value (and store_unavailable_total says why).
          try {
            this.set(await outbox.depth());
          } catch {
            // kept
          }
        },
      });
      const sent = new Counter({ name: `${METRICS_PREFIX}mails_sent_total`, help: 'Mails the SMTP server (or the log) took.', registers });
      const failed = new Counter({
        name: `${METRICS_PREFIX}mail_send_failures_total`,
        help: 'Attempts to send a mail that failed; each such mail stays in the outbox and is tried again later.',
        registers,
      });
      const dropped = new Counter({
        name: `${METRICS_PREFIX}mails_dropped_total`,
        help: 'Mails the outbox let go unsent because it was full, by kind ("contact", "unverified" or "security"); only a bounded outbox (the memory store) drops any. Should stay 0.',
        labelNames: ['kind'],
        registers,
      });
      // Every kind from the start, so a scrape shows 0 before anything was dropped.
      for (const kind of MAIL_KINDS) dropped.inc({ kind }, 0);
      return { onSent: () => sent.inc(), onAttemptFailed: () => failed.inc(), onDropped: (mail) => dropped.inc({ kind: mail.kind }) };
    },

    async listen(config) {
      server = createServer((req, res) => {
        if (requestPath(req.url ?? '/') !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
          res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found; the metrics are at /metrics\n');
          return;
        }
        registry.metrics().then(
          (text) => res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(text),
          () => res.writeHead(500).end(),
        );
      });
      server.listen(config.port, config.host);
      await once(server, 'listening');
      const { address, port } = server.address() as AddressInfo;
      return `http://${address.includes(':') ? `[${address}]` : address}:${port}/metrics`;
    },

    async close() {
      if (!server?.listening) return;
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
