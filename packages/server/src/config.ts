/**
 * Configuration: environment variables, parsed once with zod into one typed value. Every rule about a
 * variable (its range, its default, which store it selects) is written here and nowhere else.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  ACCOUNT_LOGIN_LIMIT,
  NEW_DEVICE_NOTICE_LIMIT,
  DEFAULT_IPV6_PREFIX,
  DEFAULT_MAIL_LEASE_MS,
  DEFAULT_MAIL_POLL_MS,
  DEFAULT_MAX_SESSIONS_PER_USER,
  DEFAULT_PBKDF2_ITERATIONS,
  DEFAULT_RETRY_SCHEDULE,
  DEFAULT_SESSION_CACHE_SIZE,
  DEFAULT_SESSION_CACHE_STALENESS_MS,
  INBOX_LIMIT,
  RESET_ADDRESS_LIMIT,
  SECURITY_EVENTS,
  isSecurityEvent,
  type RateLimitRule,
  type SecurityEvent,
  type SecurityNoticeOptions,
  type RetrySchedule,
  type IdentityProviderOptions,
} from '@sl-accounts/service/core';
import { normaliseBasePath } from '@sl-accounts/service/http';
import type { HttpLimits } from '@sl-accounts/service/http-node';
import { parseAdminTokens, type AdminConfig } from './admin.ts';
import { DEFAULT_DB_TIMEOUT_MS, parsePGliteSettings } from '@sl-accounts/store-postgres/settings';
import { DEFAULT_RATE_LIMIT_KEYS } from '@sl-accounts/store-memory';
/** The file name only: the store itself (and node:sqlite) is loaded when STORE=sqlite opens it. */
const SQLITE_FILE = 'accounts.sqlite';

/** The store the configuration names, with its settings. */
export type StoreConfig =
  /** `timeoutMs`: bound on each statement, from asking for a connection to its answer. */
  | { readonly kind: 'postgres'; readonly url: string; readonly timeoutMs: number }
  /** `settings`: Postgres settings over the store's defaults (PGLITE_SETTINGS). */
  | { readonly kind: 'pglite'; readonly dataDir: string; readonly settings: Readonly<Record<string, string>> }
  /** `rateLimitKeys`: most rate-limit windows kept in memory (least recently used dropped first). */
  | { readonly kind: 'memory'; readonly rateLimitKeys: number }
  /** `path`: the SQLite file (SQLITE_PATH, else `accounts.sqlite` in DATA_DIR); one process at a time. */
  | { readonly kind: 'sqlite'; readonly path: string };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** `pretty`: one readable line per entry, for a person at a terminal; `json`: one JSON object per line. */
export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Where the Prometheus metrics are served; only when METRICS_PORT is set. */
export interface MetricsConfig {
  readonly port: number;
  readonly host: string;
}

/** The whole configuration, as `loadConfig` reads it from the environment. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly store: StoreConfig;
  /** Trusted proxy hops in front of the server; 0 ignores X-Forwarded-* headers. */
  readonly trustProxy: number;
  /** Leading bits of an IPv6 address that make one client for the rate limits. */
  readonly ipv6Prefix: number;
  /** Failed logins allowed per account and window; `null` when turned off (`LOGIN_FAILURES_PER_ACCOUNT=0`). */
  readonly accountLoginLimit: RateLimitRule | null;
  /** Live sessions one user may hold; a login beyond it ends the oldest. */
  readonly maxSessionsPerUser: number;
  /** New-device notices mailed per account and hour; `null` for one at every such login (`NEW_DEVICE_NOTICES_PER_HOUR=0`). */
  readonly newDeviceNoticeLimit: RateLimitRule | null;
  /** The session cache in front of the store; `undefined` when turned off (`SESSION_CACHE_SIZE=0`). */
  readonly sessionCache: SessionCacheConfig | undefined;
  /** Work factor of new password hashes. */
  readonly pbkdf2Iterations: number;
  /** The absolute base URL for documents, without a trailing slash; else each request's origin. */
  readonly publicUrl: string | undefined;
  /**
   * The page a reset mail links to (`?token=` is added): RESET_URL, else `undefined`: the service's
   * own page, `<PUBLIC_URL or the listening address><BASE_PATH>/reset-password`. Never a request's Host.
   */
  readonly resetUrl: string | undefined;
  /**
   * The page a verification or change-of-address mail links to (`?token=` is added): VERIFY_URL,
   * else `undefined`: the service's own page at `/verify-email`, as `resetUrl`. Never a request's Host.
   */
  readonly verifyUrl: string | undefined;
  /** Reset requests allowed per inbox (registered or not) and window. */
  readonly resetAddressLimit: RateLimitRule;
  /** Mails per inbox and hour that anyone can cause besides reset links (links, notices to unverified addresses). */
  readonly inboxLimit: RateLimitRule;
  /** The security notices turned off by SECURITY_NOTICES_OFF (`false` for each); the rest are sent. */
  readonly securityNotices: SecurityNoticeOptions;
  /** The path the service is mounted under (`BASE_PATH`): '' for the root, else e.g. `/accounts`. */
  readonly basePath: string;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  /** `undefined`: pretty when standard output is a terminal, else JSON. */
  readonly logFormat: LogFormat | undefined;
  /** `undefined`: no metrics (METRICS_PORT unset). */
  readonly metrics: MetricsConfig | undefined;
  /** `undefined`: no operator's API (ADMIN_PORT unset). */
  readonly admin?: AdminConfig | undefined;
  /** Days the activity log keeps an event (ACTIVITY_RETENTION_DAYS); default 90. */
  readonly activityRetentionDays?: number;
  readonly http: HttpLimits;
  readonly mail: MailConfig;
  /** SECRETS_KEY (base64 of 32 bytes), or `undefined` (see `production`). */
  readonly secretsKey: string | undefined;
  /** The issuer authenticator apps show; default the service name. */
  readonly totpIssuer: string | undefined;
  /** The identity providers of the `AUTH_<ID>_*` variables, in the order of their ids. */
  readonly identityProviders: readonly IdentityProviderOptions[];
  /** NODE_ENV=production: no development stand-ins (a missing SECRETS_KEY refuses to start while a factor is on). */
  readonly production: boolean;
}

/** Where mails go, and how the outbox worker sends them. */
export interface MailConfig {
  /** `undefined`: no SMTP_URL, mails are written to the log instead of sent. */
  readonly smtp: { readonly url: string; readonly timeoutMs: number } | undefined;
  /** The From of every mail (MAIL_FROM). */
  readonly from: string;
  /** Where contact messages are mailed; `undefined`: they are only stored. */
  readonly contactTo: string | undefined;
  readonly pollMs: number;
  readonly leaseMs: number;
  readonly retry: RetrySchedule;
}

/** The From address when MAIL_FROM is unset (allowed only while mails go to the log). */
export const DEFAULT_MAIL_FROM = 'sl-accounts@localhost';

export interface SessionCacheConfig {
  /** Most sessions held in memory. */
  readonly maxEntries: number;
  /** How far the store's revocation feed may lag, in milliseconds, for the cache to answer. */
  readonly stalenessMs: number;
}

/** Connections one peer address may hold when no proxy is trusted (see the README for why). */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;

/**
 * The embedded store of a start that names none (no STORE, no DATABASE_URL): SQLite
 * (docs/decisions/0042-embedded-default.md), except where DATA_DIR already holds PGlite's data (its
 * `PG_VERSION`), or names a PGlite URL (`memory://`, `idb://`), which keep being opened as PGlite.
 */
function embeddedStoreOf(dataDir: string): 'pglite' | 'sqlite' {
  return dataDir.includes('://') || existsSync(join(dataDir, 'PG_VERSION')) ? 'pglite' : 'sqlite';
}

/** Treats `VAR=` like an unset variable. */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());
/** A whole number of milliseconds, at least 1 (a bound that is off is not offered). */
const milliseconds = (fallback: number) => optional(z.coerce.number().int().min(1).max(3_600_000)).default(fallback);

const Env = z
  .object({
    PORT: optional(z.coerce.number().int().min(0).max(65_535)).default(3000),
    HOST: optional(z.string()).default('127.0.0.1'),
    DATABASE_URL: optional(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')),
    DATA_DIR: optional(z.string()).default('./.data'),
    PGLITE_SETTINGS: optional(
      z.string().transform((text, ctx) => {
        try {
          return parsePGliteSettings(text);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
          return z.NEVER;
        }
      }),
    ).default({}),
    STORE: optional(z.enum(['postgres', 'pglite', 'sqlite', 'memory'])),
    SQLITE_PATH: optional(z.string()),
    TRUST_PROXY: optional(z.coerce.number().int().min(0).max(32)).default(0),
    IPV6_PREFIX: optional(z.coerce.number().int().min(1).max(128)).default(DEFAULT_IPV6_PREFIX),
    LOGIN_FAILURES_PER_ACCOUNT: optional(z.coerce.number().int().min(0).max(1_000_000)).default(ACCOUNT_LOGIN_LIMIT.limit),
    LOGIN_FAILURE_WINDOW_SECONDS: optional(z.coerce.number().int().min(1).max(86_400 * 30)).default(ACCOUNT_LOGIN_LIMIT.windowMs / 1000),
    MAX_SESSIONS_PER_USER: optional(z.coerce.number().int().min(1).max(1_000_000)).default(DEFAULT_MAX_SESSIONS_PER_USER),
    NEW_DEVICE_NOTICES_PER_HOUR: optional(z.coerce.number().int().min(0).max(1_000_000)).default(NEW_DEVICE_NOTICE_LIMIT.limit),
    MEMORY_RATE_LIMIT_KEYS: optional(z.coerce.number().int().min(1).max(100_000_000)).default(DEFAULT_RATE_LIMIT_KEYS),
    SESSION_CACHE_SIZE: optional(z.coerce.number().int().min(0).max(10_000_000)).default(DEFAULT_SESSION_CACHE_SIZE),
    SESSION_CACHE_STALENESS_MS: optional(z.coerce.number().int().min(1).max(60_000)).default(DEFAULT_SESSION_CACHE_STALENESS_MS),
    PBKDF2_ITERATIONS: optional(z.coerce.number().int().min(1).max(100_000_000)).default(DEFAULT_PBKDF2_ITERATIONS),
    PUBLIC_URL: optional(z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''))),
    RESET_URL: optional(z.url({ protocol: /^https?$/ })),
    VERIFY_URL: optional(z.url({ protocol: /^https?$/ })),
    RESET_REQUESTS_PER_ADDRESS: optional(z.coerce.number().int().min(1).max(50)).default(RESET_ADDRESS_LIMIT.limit),
    RESET_REQUEST_WINDOW_SECONDS: optional(z.coerce.number().int().min(1).max(86_400 * 30)).default(RESET_ADDRESS_LIMIT.windowMs / 1000),
    MAILS_PER_INBOX_PER_HOUR: optional(z.coerce.number().int().min(1).max(50)).default(INBOX_LIMIT.limit),
    // A comma-separated list of events whose notices are not sent; `all` for every one.
    SECURITY_NOTICES_OFF: optional(
      z.string().transform((text, ctx): SecurityNoticeOptions => {
        const names = text.split(',').map((name) => name.trim()).filter((name) => name !== '');
        if (names.includes('all')) return false;
        const off: Partial<Record<SecurityEvent, boolean>> = {};
        for (const name of names) {
          if (isSecurityEvent(name)) off[name] = false;
          else ctx.addIssue({ code: 'custom', message: `unknown event "${name}" (known: ${SECURITY_EVENTS.join(', ')}, or all)` });
        }
        return off;
      }),
    ).default({}),
    BASE_PATH: optional(
      z.string().superRefine((value, ctx) => {
        try {
          normaliseBasePath(value);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
        }
      }),
    ),
    LOG_LEVEL: optional(z.enum(LOG_LEVELS)).default('info'),
    LOG_FORMAT: optional(z.enum(LOG_FORMATS)),
    METRICS_PORT: optional(z.coerce.number().int().min(0).max(65_535)),
    // Loopback by default: the metrics describe the service to its operators, not to its users.
    METRICS_HOST: optional(z.string()).default('127.0.0.1'),
    // The operator's API (issue 43): off unless ADMIN_PORT is set; loopback by default, as the metrics.
    ADMIN_PORT: optional(z.coerce.number().int().min(0).max(65_535)),
    ADMIN_HOST: optional(z.string()).default('127.0.0.1'),
    ADMIN_TOKENS: optional(
      z.string().superRefine((value, ctx) => {
        try {
          parseAdminTokens(value);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^ADMIN_TOKENS: /, '') });
        }
      }),
    ),
    ACTIVITY_RETENTION_DAYS: optional(z.coerce.number().int().min(1).max(36_500)),
    DB_TIMEOUT_MS: milliseconds(DEFAULT_DB_TIMEOUT_MS),
    HEADERS_TIMEOUT_MS: milliseconds(10_000),
    REQUEST_TIMEOUT_MS: milliseconds(30_000),
    KEEP_ALIVE_TIMEOUT_MS: milliseconds(5_000),
    UNREAD_RESPONSE_TIMEOUT_MS: milliseconds(30_000),
    MAX_CONNECTIONS: optional(z.coerce.number().int().min(1)),
    MAX_CONNECTIONS_PER_ADDRESS: optional(z.coerce.number().int().min(0)),
    SMTP_URL: optional(z.string().regex(/^smtps?:\/\/[^/?#]/, 'must be an smtp:// or smtps:// URL')),
    // A bare address or `Name <address>`: the domain after the last @ names every Message-ID.
    MAIL_FROM: optional(z.string().regex(/^[^\r\n]*@[^@\s<>]+>?$/, 'must be an address, or Name <address>')),
    CONTACT_TO: optional(z.email()),
    SMTP_TIMEOUT_MS: milliseconds(10_000),
    MAIL_POLL_MS: milliseconds(DEFAULT_MAIL_POLL_MS),
    MAIL_LEASE_MS: milliseconds(DEFAULT_MAIL_LEASE_MS),
    MAIL_RETRY_BASE_MS: milliseconds(DEFAULT_RETRY_SCHEDULE.baseMs),
    MAIL_RETRY_MAX_MS: milliseconds(DEFAULT_RETRY_SCHEDULE.maxMs),
    // 32 random bytes, base64 (`openssl rand -base64 32`): seals TOTP secrets at rest (ADR 0044).
    SECRETS_KEY: optional(z.string().refine((v) => Buffer.from(v, 'base64').length === 32 && /^[A-Za-z0-9+/]+={0,2}$/.test(v), 'must be 32 bytes, base64-encoded (openssl rand -base64 32)')),
    TOTP_ISSUER: optional(z.string().min(1).max(100).regex(/^[^:]+$/, 'must not contain a colon (authenticator apps read it as the label separator)')),
    NODE_ENV: optional(z.string()),
  })
  .superRefine((env, ctx) => {
    if (env.ADMIN_PORT !== undefined && !env.ADMIN_TOKENS) ctx.addIssue({ code: 'custom', path: ['ADMIN_TOKENS'], message: 'ADMIN_PORT needs ADMIN_TOKENS (name:token pairs)' });
    if (env.STORE === 'postgres' && !env.DATABASE_URL) ctx.addIssue({ code: 'custom', path: ['STORE'], message: 'STORE=postgres needs DATABASE_URL' });
    // The headers are part of the request, and Node refuses the opposite.
    if (env.HEADERS_TIMEOUT_MS > env.REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HEADERS_TIMEOUT_MS'], message: 'must not exceed REQUEST_TIMEOUT_MS' });
    }
    // Real mail from a made-up sender would be refused or filed as spam: say who sends.
    if (env.SMTP_URL && !env.MAIL_FROM) ctx.addIssue({ code: 'custom', path: ['MAIL_FROM'], message: 'SMTP_URL needs MAIL_FROM' });
    // A send may take three stages of SMTP_TIMEOUT_MS (connect, greeting, a reply); a lease shorter than that could let a second worker send the same mail.
    if (env.MAIL_LEASE_MS <= 3 * env.SMTP_TIMEOUT_MS) ctx.addIssue({ code: 'custom', path: ['MAIL_LEASE_MS'], message: 'must exceed three times SMTP_TIMEOUT_MS' });
    if (env.MAIL_RETRY_BASE_MS > env.MAIL_RETRY_MAX_MS) ctx.addIssue({ code: 'custom', path: ['MAIL_RETRY_BASE_MS'], message: 'must not exceed MAIL_RETRY_MAX_MS' });
  })
  .transform((env): Omit<Config, 'identityProviders'> => {
    const kind = env.STORE ?? (env.DATABASE_URL ? 'postgres' : embeddedStoreOf(env.DATA_DIR));
    const store: StoreConfig =
      kind === 'postgres'
        ? { kind, url: env.DATABASE_URL!, timeoutMs: env.DB_TIMEOUT_MS }
        : kind === 'pglite'
          ? { kind, dataDir: env.DATA_DIR, settings: env.PGLITE_SETTINGS }
          : kind === 'sqlite'
            ? { kind, path: env.SQLITE_PATH ?? join(env.DATA_DIR, SQLITE_FILE) }
            : { kind, rateLimitKeys: env.MEMORY_RATE_LIMIT_KEYS };
    return {
      port: env.PORT,
      host: env.HOST,
      store,
      trustProxy: env.TRUST_PROXY,
      ipv6Prefix: env.IPV6_PREFIX,
      accountLoginLimit:
        env.LOGIN_FAILURES_PER_ACCOUNT === 0 ? null : { limit: env.LOGIN_FAILURES_PER_ACCOUNT, windowMs: env.LOGIN_FAILURE_WINDOW_SECONDS * 1000 },
      maxSessionsPerUser: env.MAX_SESSIONS_PER_USER,
      newDeviceNoticeLimit: env.NEW_DEVICE_NOTICES_PER_HOUR === 0 ? null : { limit: env.NEW_DEVICE_NOTICES_PER_HOUR, windowMs: 60 * 60_000 },
      sessionCache: env.SESSION_CACHE_SIZE === 0 ? undefined : { maxEntries: env.SESSION_CACHE_SIZE, stalenessMs: env.SESSION_CACHE_STALENESS_MS },
      pbkdf2Iterations: env.PBKDF2_ITERATIONS,
      publicUrl: env.PUBLIC_URL,
      resetUrl: env.RESET_URL,
      verifyUrl: env.VERIFY_URL,
      resetAddressLimit: { limit: env.RESET_REQUESTS_PER_ADDRESS, windowMs: env.RESET_REQUEST_WINDOW_SECONDS * 1000 },
      inboxLimit: { limit: env.MAILS_PER_INBOX_PER_HOUR, windowMs: INBOX_LIMIT.windowMs },
      securityNotices: env.SECURITY_NOTICES_OFF,
      basePath: normaliseBasePath(env.BASE_PATH),
      logLevel: env.LOG_LEVEL,
      logFormat: env.LOG_FORMAT,
      metrics: env.METRICS_PORT === undefined ? undefined : { port: env.METRICS_PORT, host: env.METRICS_HOST },
      ...(env.ADMIN_PORT === undefined ? {} : { admin: { port: env.ADMIN_PORT, host: env.ADMIN_HOST, tokens: parseAdminTokens(env.ADMIN_TOKENS!) } }),
      ...(env.ACTIVITY_RETENTION_DAYS === undefined ? {} : { activityRetentionDays: env.ACTIVITY_RETENTION_DAYS }),
      http: {
        headersTimeoutMs: env.HEADERS_TIMEOUT_MS,
        requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: env.KEEP_ALIVE_TIMEOUT_MS,
        unreadResponseTimeoutMs: env.UNREAD_RESPONSE_TIMEOUT_MS,
        maxConnections: env.MAX_CONNECTIONS,
        // Behind trusted proxies every connection comes from a proxy: the proxy's limits apply.
        maxConnectionsPerAddress: env.MAX_CONNECTIONS_PER_ADDRESS ?? (env.TRUST_PROXY > 0 ? 0 : DEFAULT_MAX_CONNECTIONS_PER_ADDRESS),
      },
      secretsKey: env.SECRETS_KEY,
      totpIssuer: env.TOTP_ISSUER,
      production: env.NODE_ENV === 'production',
      mail: {
        smtp: env.SMTP_URL === undefined ? undefined : { url: env.SMTP_URL, timeoutMs: env.SMTP_TIMEOUT_MS },
        from: env.MAIL_FROM ?? DEFAULT_MAIL_FROM,
        contactTo: env.CONTACT_TO,
        pollMs: env.MAIL_POLL_MS,
        leaseMs: env.MAIL_LEASE_MS,
        retry: { baseMs: env.MAIL_RETRY_BASE_MS, maxMs: env.MAIL_RETRY_MAX_MS },
      },
    };
  });

/** The issuers of the OpenID Connect presets (Auth.js's names); GitHub speaks OAuth 2.0 and has none. */
const PRESET_ISSUERS: Readonly<Record<string, (tenant: string | undefined) => string>> = {
  GOOGLE: () => 'https://accounts.google.com',
  GITLAB: () => 'https://gitlab.com',
  MICROSOFT: (tenant) => `https://login.microsoftonline.com/${tenant}/v2.0`,
};
const PRESET_NAMES: Readonly<Record<string, string>> = { GOOGLE: 'Google', GITLAB: 'GitLab', MICROSOFT: 'Microsoft', GITHUB: 'GitHub' };

/**
 * The identity providers the `AUTH_<ID>_*` variables configure (issue 42): a generic OpenID Connect
 * provider is on with `AUTH_<ID>_ISSUER`, `_ID` and `_SECRET` (`_NAME` optional); the presets
 * (Google, Microsoft with `AUTH_MICROSOFT_TENANT`, GitLab, GitHub) need only the id and the secret.
 * Problems are answered as the configuration's other issues (variable: message).
 */
export function identityProvidersOf(env: Readonly<Record<string, string | undefined>>, production: boolean): { readonly providers: IdentityProviderOptions[]; readonly problems: string[] } {
  const ids = new Set<string>();
  for (const name of Object.keys(env)) {
    const match = /^AUTH_([A-Z0-9]+)_(ISSUER|ID|SECRET|NAME|TENANT)$/.exec(name);
    if (match && env[name]) ids.add(match[1]!);
  }
  const providers: IdentityProviderOptions[] = [];
  const problems: string[] = [];
  for (const ID of [...ids].sort()) {
    const get = (suffix: string) => env[`AUTH_${ID}_${suffix}`] || undefined;
    const [clientId, clientSecret, issuerSet, name] = [get('ID'), get('SECRET'), get('ISSUER'), get('NAME')];
    if (!/^[A-Z][A-Z0-9]{0,31}$/.test(ID) || ID === 'PROVIDERS') {
      problems.push(`AUTH_${ID}_*: a provider's id is letters and digits, starting with a letter (and not PROVIDERS)`);
      continue;
    }
    if (!clientId || !clientSecret) {
      problems.push(`AUTH_${ID}_${clientId ? 'SECRET' : 'ID'}: required with the other AUTH_${ID}_* variables`);
      continue;
    }
    const common = { id: ID.toLowerCase(), clientId, clientSecret, ...(name || PRESET_NAMES[ID] ? { name: name ?? PRESET_NAMES[ID]! } : {}), ...(production ? {} : { allowHttp: true }) };
    if (ID === 'GITHUB' && !issuerSet) {
      providers.push({ ...common, kind: 'github' });
      continue;
    }
    if (ID === 'MICROSOFT' && !issuerSet && !get('TENANT')) {
      problems.push('AUTH_MICROSOFT_TENANT: required (the directory tenant id: the multi-tenant issuers name no one issuer to check ID tokens against)');
      continue;
    }
    const issuer = issuerSet ?? PRESET_ISSUERS[ID]?.(get('TENANT'));
    if (!issuer || !URL.canParse(issuer)) {
      problems.push(`AUTH_${ID}_ISSUER: ${issuer ? 'must be a URL' : 'required for a provider that is not a preset (google, microsoft, gitlab, github)'}`);
      continue;
    }
    if (production && new URL(issuer).protocol !== 'https:') {
      problems.push(`AUTH_${ID}_ISSUER: must be https in production`);
      continue;
    }
    providers.push({ ...common, issuer });
  }
  return { providers, problems };
}

/** Parses the environment; throws an Error whose message names every bad variable, on one line. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const result = Env.safeParse(env);
  const production = env.NODE_ENV === 'production';
  const { providers, problems } = identityProvidersOf(env, production);
  // The redirect URI is PUBLIC_URL's: a request's Host would let a client name where codes go.
  if (production && providers.length > 0 && !env.PUBLIC_URL) problems.push(`AUTH_${providers[0]!.id.toUpperCase()}_ID: an identity provider needs PUBLIC_URL in production (its redirect URI is <PUBLIC_URL><BASE_PATH>/api/sign-in/${providers[0]!.id}/callback)`);
  if (!result.success || problems.length > 0) {
    const issues = (result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).concat(problems);
    throw new Error(`Invalid configuration: ${issues.join('; ')}`);
  }
  return { ...result.data, identityProviders: providers };
}
