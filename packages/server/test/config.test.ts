import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@sl-accounts/server';

describe('limits in the configuration', () => {
  it('defaults: a 5 s database bound, timeouts in seconds, 256 connections per address, the total from the descriptor limit', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://db/x' });
    expect(config.store).toEqual({ kind: 'postgres', url: 'postgres://db/x', timeoutMs: 5_000 });
    expect(config.http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, unreadResponseTimeoutMs: 30_000, maxConnections: undefined, maxConnectionsPerAddress: 256 });
  });

  it('bounds sessions per user (50) and the memory limiter’s windows (100,000) by default; both configurable', () => {
    expect(loadConfig({}).maxSessionsPerUser).toBe(50);
    expect(loadConfig({ MAX_SESSIONS_PER_USER: '3' }).maxSessionsPerUser).toBe(3);
    expect(() => loadConfig({ MAX_SESSIONS_PER_USER: '0' })).toThrow(/MAX_SESSIONS_PER_USER/);
    expect(loadConfig({ STORE: 'memory' }).store).toEqual({ kind: 'memory', rateLimitKeys: 100_000 });
    expect(loadConfig({ STORE: 'memory', MEMORY_RATE_LIMIT_KEYS: '500' }).store).toEqual({ kind: 'memory', rateLimitKeys: 500 });
  });

  it('behind trusted proxies there is no per-address cap unless one is set', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).http.maxConnectionsPerAddress).toBe(0);
    expect(loadConfig({ TRUST_PROXY: '1', MAX_CONNECTIONS_PER_ADDRESS: '50' }).http.maxConnectionsPerAddress).toBe(50);
    expect(loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '0' }).http.maxConnectionsPerAddress).toBe(0);
  });

  it('takes every variable', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://db/x',
      DB_TIMEOUT_MS: '2500',
      HEADERS_TIMEOUT_MS: '3000',
      REQUEST_TIMEOUT_MS: '4000',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
      UNREAD_RESPONSE_TIMEOUT_MS: '7000',
      MAX_CONNECTIONS: '500',
      MAX_CONNECTIONS_PER_ADDRESS: '20',
    });
    expect(config.store).toMatchObject({ timeoutMs: 2_500 });
    expect(config.http).toEqual({ headersTimeoutMs: 3_000, requestTimeoutMs: 4_000, keepAliveTimeoutMs: 1_000, unreadResponseTimeoutMs: 7_000, maxConnections: 500, maxConnectionsPerAddress: 20 });
  });

  it.each([
    ['DB_TIMEOUT_MS', { DB_TIMEOUT_MS: '0' }],
    ['DB_TIMEOUT_MS', { DB_TIMEOUT_MS: 'soon' }],
    ['REQUEST_TIMEOUT_MS', { REQUEST_TIMEOUT_MS: '-1' }],
    ['UNREAD_RESPONSE_TIMEOUT_MS', { UNREAD_RESPONSE_TIMEOUT_MS: '0' }],
    ['MAX_CONNECTIONS', { MAX_CONNECTIONS: '0' }],
    ['MAX_CONNECTIONS_PER_ADDRESS', { MAX_CONNECTIONS_PER_ADDRESS: '1.5' }],
    ['HEADERS_TIMEOUT_MS', { HEADERS_TIMEOUT_MS: '40000' }],
  ])('refuses a bad %s with a message that names it', (name, env) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration: .*${name}`));
  });
});

describe('mail in the configuration', () => {
  it('defaults: mails go to the log from sl-accounts@localhost, contact messages are not mailed, 1 s polls, 5 s doubling to 10 min', () => {
    expect(loadConfig({}).mail).toEqual({
      smtp: undefined,
      from: 'sl-accounts@localhost',
      contactTo: undefined,
      pollMs: 1_000,
      leaseMs: 120_000,
      retry: { baseMs: 5_000, maxMs: 600_000 },
    });
  });

  it('takes every variable', () => {
    const config = loadConfig({
      SMTP_URL: 'smtps://user:secret@mail.example.org:465',
      MAIL_FROM: 'Accounts <accounts@example.org>',
      CONTACT_TO: 'ops@example.org',
      SMTP_TIMEOUT_MS: '3000',
      MAIL_POLL_MS: '250',
      MAIL_LEASE_MS: '60000',
      MAIL_RETRY_BASE_MS: '1000',
      MAIL_RETRY_MAX_MS: '30000',
    });
    expect(config.mail).toEqual({
      smtp: { url: 'smtps://user:secret@mail.example.org:465', timeoutMs: 3_000 },
      from: 'Accounts <accounts@example.org>',
      contactTo: 'ops@example.org',
      pollMs: 250,
      leaseMs: 60_000,
      retry: { baseMs: 1_000, maxMs: 30_000 },
    });
  });

  it.each([
    ['SMTP_URL', { SMTP_URL: 'http://mail.example.org' }],
    ['MAIL_FROM', { SMTP_URL: 'smtp://mail.example.org' }],
    ['MAIL_FROM', { MAIL_FROM: 'nobody' }],
    ['MAIL_FROM', { MAIL_FROM: 'a@b.example\r\nBcc: x@y.example' }],
    ['CONTACT_TO', { CONTACT_TO: 'not an address' }],
    ['MAIL_LEASE_MS', { MAIL_LEASE_MS: '30000' }],
    ['MAIL_RETRY_BASE_MS', { MAIL_RETRY_BASE_MS: '700000', MAIL_RETRY_MAX_MS: '600000' }],
  ])('refuses a bad %s with a message that names it', (name, env) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration: .*${name}`));
  });

  it('never echoes the SMTP password in its message', () => {
    expect(() => loadConfig({ SMTP_URL: 'smtp://user:hunter2@mail.example.org' })).toThrow(/MAIL_FROM/);
    expect(() => loadConfig({ SMTP_URL: 'smtp://user:hunter2@mail.example.org' })).not.toThrow(/hunter2/);
  });
});

describe('metrics in the configuration', () => {
  it('are off unless METRICS_PORT is set, and on loopback unless METRICS_HOST says otherwise', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '' }).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ port: 9464, host: '0.0.0.0' });
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/^Invalid configuration: METRICS_PORT/);
  });
});

describe('the session cache in the configuration', () => {
  it('is on by default: 50,000 sessions, answered while the revocation feed lags by at most 100 ms', () => {
    expect(loadConfig({}).sessionCache).toEqual({ maxEntries: 50_000, stalenessMs: 100 });
  });

  it('takes its size and bound, and SESSION_CACHE_SIZE=0 turns it off', () => {
    expect(loadConfig({ SESSION_CACHE_SIZE: '1000', SESSION_CACHE_STALENESS_MS: '250' }).sessionCache).toEqual({ maxEntries: 1_000, stalenessMs: 250 });
    expect(loadConfig({ SESSION_CACHE_SIZE: '0' }).sessionCache).toBeUndefined();
  });

  it.each([
    ['SESSION_CACHE_SIZE', { SESSION_CACHE_SIZE: '-1' }],
    ['SESSION_CACHE_SIZE', { SESSION_CACHE_SIZE: 'many' }],
    ['SESSION_CACHE_STALENESS_MS', { SESSION_CACHE_STALENESS_MS: '0' }],
    ['SESSION_CACHE_STALENESS_MS', { SESSION_CACHE_STALENESS_MS: '1.5' }],
  ])('refuses a bad %s with its name', (name, env) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration: ${name}: `));
  });
});

describe('the store a start opens', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sl-config-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('SQLite in DATA_DIR when neither STORE nor DATABASE_URL is set, and DATA_DIR holds no PGlite data', () => {
    expect(loadConfig({ DATA_DIR: dir }).store).toEqual({ kind: 'sqlite', path: join(dir, 'accounts.sqlite') });
    expect(loadConfig({ DATA_DIR: join(dir, 'not yet made') }).store).toEqual({ kind: 'sqlite', path: join(dir, 'not yet made', 'accounts.sqlite') });
  });

  it('PGlite where DATA_DIR holds PGlite’s data already (its PG_VERSION), or is a PGlite URL', () => {
    writeFileSync(join(dir, 'PG_VERSION'), '17\n');
    expect(loadConfig({ DATA_DIR: dir }).store).toEqual({ kind: 'pglite', dataDir: dir, settings: {} });
    expect(loadConfig({ DATA_DIR: 'memory://' }).store).toMatchObject({ kind: 'pglite', dataDir: 'memory://' });
  });

  it('SQLITE_PATH names the file; STORE and DATABASE_URL decide over what DATA_DIR holds', () => {
    expect(loadConfig({ STORE: 'sqlite', SQLITE_PATH: '/srv/accounts.db', DATA_DIR: dir }).store).toEqual({ kind: 'sqlite', path: '/srv/accounts.db' });
    writeFileSync(join(dir, 'PG_VERSION'), '17\n');
    expect(loadConfig({ STORE: 'sqlite', DATA_DIR: dir }).store).toEqual({ kind: 'sqlite', path: join(dir, 'accounts.sqlite') });
    expect(loadConfig({ DATABASE_URL: 'postgres://db.example/accounts', DATA_DIR: dir }).store).toMatchObject({ kind: 'postgres' });
    expect(() => loadConfig({ STORE: 'mysql' })).toThrow(/^Invalid configuration: STORE: /);
  });
});

describe('the embedded database’s settings (PGLITE_SETTINGS)', () => {
  it('none by default: the store’s own small-machine defaults apply', () => {
    expect(loadConfig({ STORE: 'pglite' }).store).toEqual({ kind: 'pglite', dataDir: './.data', settings: {} });
  });

  it('takes name=value pairs separated by commas, names lower-cased', () => {
    expect(loadConfig({ STORE: 'pglite', PGLITE_SETTINGS: 'shared_buffers=64MB, Work_Mem = 8MB,' }).store).toMatchObject({ settings: { shared_buffers: '64MB', work_mem: '8MB' } });
  });

  it('refuses an entry that is not name=value, naming it and the variable', () => {
    expect(() => loadConfig({ PGLITE_SETTINGS: 'shared_buffers=64MB,work_mem' })).toThrow(/^Invalid configuration: PGLITE_SETTINGS: "work_mem" is not name=value$/);
    expect(() => loadConfig({ PGLITE_SETTINGS: 'shared buffers=1MB' })).toThrow(/PGLITE_SETTINGS: "shared buffers=1MB" is not name=value/);
    expect(() => loadConfig({ PGLITE_SETTINGS: 'shared_buffers=' })).toThrow(/PGLITE_SETTINGS/);
  });
});

describe('verification link settings', () => {
  it('the verification page is VERIFY_URL, else unset (the service’s own page, at PUBLIC_URL or its own address: test/http/link-pages.test.ts)', () => {
    expect(loadConfig({}).verifyUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://accounts.example.org/' }).verifyUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://accounts.example.org', VERIFY_URL: 'https://www.example.org/account/verify?lang=en' }).verifyUrl).toBe('https://www.example.org/account/verify?lang=en');
  });

  it('refuses a verification page that is not an http(s) URL', () => {
    expect(() => loadConfig({ VERIFY_URL: 'javascript:alert(1)' })).toThrow(/VERIFY_URL/);
    expect(() => loadConfig({ VERIFY_URL: '/verify-email' })).toThrow(/VERIFY_URL/);
  });
});

describe('password reset settings', () => {
  it('the reset page is RESET_URL, else unset (the service’s own page); 2 reset links per address in any 30 minutes', () => {
    expect(loadConfig({}).resetUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://accounts.example.org/' }).resetUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://accounts.example.org', RESET_URL: 'https://www.example.org/account/reset' }).resetUrl).toBe('https://www.example.org/account/reset');
    expect(loadConfig({}).resetAddressLimit).toEqual({ limit: 2, windowMs: 1_800_000 });
    expect(loadConfig({ RESET_REQUESTS_PER_ADDRESS: '5', RESET_REQUEST_WINDOW_SECONDS: '600' }).resetAddressLimit).toEqual({ limit: 5, windowMs: 600_000 });
  });

  it('refuses a reset page that is not an http(s) URL, and a per-address limit of 0', () => {
    expect(() => loadConfig({ RESET_URL: 'javascript:alert(1)' })).toThrow(/RESET_URL/);
    expect(() => loadConfig({ RESET_URL: 'not a url' })).toThrow(/RESET_URL/);
    expect(() => loadConfig({ RESET_REQUESTS_PER_ADDRESS: '0' })).toThrow(/RESET_REQUESTS_PER_ADDRESS/);
  });
});

describe('security notices', () => {
  it('are all on by default; SECURITY_NOTICES_OFF turns the named ones off, or all', () => {
    expect(loadConfig({}).securityNotices).toEqual({});
    expect(loadConfig({ SECURITY_NOTICES_OFF: 'new-device-sign-in, password-changed' }).securityNotices).toEqual({ 'new-device-sign-in': false, 'password-changed': false });
    expect(loadConfig({ SECURITY_NOTICES_OFF: 'all' }).securityNotices).toBe(false);
  });

  it('refuses an unknown event, naming it, the variable and the known ones', () => {
    expect(() => loadConfig({ SECURITY_NOTICES_OFF: 'password-changed,new-device' })).toThrow(/SECURITY_NOTICES_OFF: unknown event "new-device" \(known: password-changed, password-reset, .*, or all\)/);
  });
});
