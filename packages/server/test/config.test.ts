import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@sl/server';
import { defaultMaxConnections, openFilesLimit } from '@sl/server';

describe('limits in the configuration', () => {
  it('defaults: a 5 s database bound, timeouts in seconds, 256 connections per address, the total from the descriptor limit', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://db/x' });
    expect(config.store).toEqual({ kind: 'postgres', url: 'postgres://db/x', timeoutMs: 5_000 });
    expect(config.http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: undefined, maxConnectionsPerAddress: 256 });
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
      MAX_CONNECTIONS: '500',
      MAX_CONNECTIONS_PER_ADDRESS: '20',
    });
    expect(config.store).toMatchObject({ timeoutMs: 2_500 });
    expect(config.http).toEqual({ headersTimeoutMs: 3_000, requestTimeoutMs: 4_000, keepAliveTimeoutMs: 1_000, maxConnections: 500, maxConnectionsPerAddress: 20 });
  });

  it.each([
    ['DB_TIMEOUT_MS', { DB_TIMEOUT_MS: '0' }],
    ['DB_TIMEOUT_MS', { DB_TIMEOUT_MS: 'soon' }],
    ['REQUEST_TIMEOUT_MS', { REQUEST_TIMEOUT_MS: '-1' }],
    ['MAX_CONNECTIONS', { MAX_CONNECTIONS: '0' }],
    ['MAX_CONNECTIONS_PER_ADDRESS', { MAX_CONNECTIONS_PER_ADDRESS: '1.5' }],
    ['HEADERS_TIMEOUT_MS', { HEADERS_TIMEOUT_MS: '40000' }],
  ])('refuses a bad %s with a message that names it', (name, env) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration: .*${name}`));
  });
});

describe('the default total cap', () => {
  it('leaves a tenth of the descriptors, at least 128, for everything but client connections', () => {
    expect(defaultMaxConnections(20_000)).toBe(18_000);
    expect(defaultMaxConnections(1_024)).toBe(896);
    expect(defaultMaxConnections(100)).toBe(1);
  });

  it('reads the soft limit on open files from a limits file, and the real one on Linux', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'limits-'));
    try {
      const file = join(dir, 'limits');
      await writeFile(
        file,
        [
          'Limit                     Soft Limit           Hard Limit           Units     ',
          'Max cpu time              unlimited            unlimited            seconds   ',
          'Max open files            20000                40000                files     ',
          '',
        ].join('\n'),
      );
      expect(openFilesLimit(file)).toBe(20_000);
      expect(openFilesLimit(join(dir, 'missing'))).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true });
    }
    if (process.platform === 'linux') expect(openFilesLimit()).toBeGreaterThan(0);
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

describe('the embedded database’s settings (PGLITE_SETTINGS)', () => {
  it('none by default: the store’s own small-machine defaults apply', () => {
    expect(loadConfig({}).store).toEqual({ kind: 'pglite', dataDir: './.data', settings: {} });
  });

  it('takes name=value pairs separated by commas, names lower-cased', () => {
    expect(loadConfig({ PGLITE_SETTINGS: 'shared_buffers=64MB, Work_Mem = 8MB,' }).store).toMatchObject({ settings: { shared_buffers: '64MB', work_mem: '8MB' } });
  });

  it('refuses an entry that is not name=value, naming it and the variable', () => {
    expect(() => loadConfig({ PGLITE_SETTINGS: 'shared_buffers=64MB,work_mem' })).toThrow(/^Invalid configuration: PGLITE_SETTINGS: "work_mem" is not name=value$/);
    expect(() => loadConfig({ PGLITE_SETTINGS: 'shared buffers=1MB' })).toThrow(/PGLITE_SETTINGS: "shared buffers=1MB" is not name=value/);
    expect(() => loadConfig({ PGLITE_SETTINGS: 'shared_buffers=' })).toThrow(/PGLITE_SETTINGS/);
  });
});
