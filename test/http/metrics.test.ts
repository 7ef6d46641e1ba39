/**
 * The Prometheus metrics (METRICS_PORT): a port of their own on loopback, off unless set, and
 * numbers that move when requests, 429s and failed logins happen, on either host. Store failures
 * and the pool are in test/postgres/metrics.test.ts, where a database can fail.
 */
// @module-tag socket
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { request, sessionFrom } from '../support/client.ts';
import { sample, scrape } from '../support/metrics.ts';
import { poll } from '../support/poll.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

const P = 'sl_accounts_';

describe.each(HOST_KINDS)('metrics on the %s host', (host) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ host, env: { METRICS_PORT: '0', TRUST_PROXY: '1', LOGIN_FAILURES_PER_ACCOUNT: '2' } });
  });
  afterAll(() => server.close());

  it('are off unless METRICS_PORT is set', async () => {
    const plain = await startTestServer({ host });
    try {
      expect(plain.metricsUrl).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it('are served on loopback, at /metrics only, in the Prometheus text format, with the process metrics', async () => {
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const res = await fetch(server.metricsUrl!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    for (const name of ['http_requests_total', 'http_request_duration_seconds', 'rate_limited_total', 'login_failures_total', 'store_unavailable_total']) {
      expect(text).toContain(`# HELP ${P}${name} `);
    }
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    // A store without a pool (memory) reports no pool.
    expect(text).not.toContain(`${P}db_pool_connections`);
    expect((await fetch(server.metricsUrl!.replace('/metrics', '/other'))).status).toBe(404);
    // The service's own port does not serve them.
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });

  it('count session lookups answered from memory and from the store, and the sessions held', async () => {
    const signup = await request(server.url, '/api/signup', { ip: '192.0.2.150', json: { name: 'Cache', email: `cache-${host}@example.com`, password: 'cached sessions' } });
    expect(signup.status).toBe(201);
    const before = await scrape(server.metricsUrl!);
    for (let i = 0; i < 4; i++) expect((await request(server.url, '/api/me', { session: sessionFrom(signup) })).status).toBe(200);
    const after = await scrape(server.metricsUrl!);
    const delta = (result: string) => sample(after, `${P}session_cache_lookups_total`, { result }) - sample(before, `${P}session_cache_lookups_total`, { result });
    // The memory store's feed is always caught up: one read fills the cache, three answers come from it.
    expect(delta('miss')).toBe(1);
    expect(delta('hit')).toBe(3);
    expect(delta('bypassed')).toBe(0);
    expect(sample(after, `${P}session_cache_entries`, {})).toBeGreaterThanOrEqual(1);
  });

  it('count requests by route, method and status, and time them', async () => {
    const before = await scrape(server.metricsUrl!);
    for (let i = 0; i < 3; i++) await request(server.url, '/api/health');
    await request(server.url, '/no/such/path/12345');
    await fetch(`${server.url}/openapi.json`, { method: 'HEAD' });
    await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    const after = await scrape(server.metricsUrl!);
    const delta = (labels: Record<string, string>) => sample(after, `${P}http_requests_total`, labels) - sample(before, `${P}http_requests_total`, labels);
    expect(delta({ route: '/api/health', method: 'GET', status: '200' })).toBe(3);
    // Unknown paths never become labels of their own.
    expect(delta({ route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect([...after.keys()].some((key) => key.includes('12345'))).toBe(false);
    expect(delta({ route: '/openapi.json', method: 'HEAD', status: '200' })).toBe(1);
    expect(delta({ route: '/mcp', method: 'POST', status: '200' })).toBe(1);
    const count = (m: Map<string, number>) => sample(m, `${P}http_request_duration_seconds_count`, { route: '/api/health', method: 'GET' });
    expect(count(after) - count(before)).toBe(3);
    expect(sample(after, `${P}http_request_duration_seconds_bucket`, { route: '/api/health', method: 'GET', le: '+Inf' })).toBe(count(after));
  });

  it('label requests by the path asked under a base path, the root /.well-known/ documents included', async () => {
    const mounted = await startTestServer({ host, env: { METRICS_PORT: '0', BASE_PATH: '/accounts' } });
    try {
      const paths = ['/accounts/api/health', '/accounts/mcp/server-card', '/.well-known/api-catalog', '/accounts', '/api/health'];
      for (const path of paths) await (await fetch(`${mounted.url}${path}`)).arrayBuffer();
      // A request is counted when its response has finished, which may be just after the client has it all.
      const total = (m: Map<string, number>) => [...m.entries()].filter(([key]) => key.startsWith(`${P}http_requests_total`)).reduce((sum, [, n]) => sum + n, 0);
      const after = await poll(() => scrape(mounted.metricsUrl!), (m) => total(m) >= paths.length, 10_000);
      const count = (route: string, status: string) => sample(after, `${P}http_requests_total`, { route, method: 'GET', status });
      expect(count('/accounts/api/health', '200')).toBe(1);
      expect(count('/accounts/mcp/server-card', '200')).toBe(1);
      expect(count('/.well-known/api-catalog', '200')).toBe(1);
      expect(count('/accounts', '200')).toBe(1);
      // Outside the base path the service serves nothing.
      expect(count('unmatched', '404')).toBe(1);
    } finally {
      await mounted.close();
    }
  });

  it('count failed logins, and 429s by operation and by limit (per IP, per account), from the API and from MCP alike', async () => {
    const before = await scrape(server.metricsUrl!);
    const account = { name: 'Ada Lovelace', email: `ada.${host}@example.com`, password: 'correct horse battery staple' };
    expect((await request(server.url, '/api/signup', { ip: '198.51.100.1', json: account })).status).toBe(201);
    // Two wrong passwords from two addresses: failed logins; the third attempt meets the per-account limit.
    expect((await request(server.url, '/api/login', { ip: '198.51.100.2', json: { email: account.email, password: 'wrong one' } })).status).toBe(401);
    expect((await request(server.url, '/api/login', { ip: '198.51.100.3', json: { email: account.email, password: 'wrong two' } })).status).toBe(401);
    expect((await request(server.url, '/api/login', { ip: '198.51.100.4', json: { email: account.email, password: account.password } })).status).toBe(429);
    // Six contact messages from one address: the sixth meets the per-IP limit.
    const message = { name: 'Ada', email: account.email, message: 'Counting towards the limit.' };
    for (let i = 0; i < 5; i++) expect((await request(server.url, '/api/contact', { ip: '198.51.100.5', json: message })).status).toBe(200);
    expect((await request(server.url, '/api/contact', { ip: '198.51.100.5', json: message })).status).toBe(429);
    // The MCP tool counts against the same limit (its calls come from 127.0.0.1).
    for (let i = 0; i < 6; i++) {
      await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'send-contact-message', arguments: message } }),
      }).then((res) => res.text());
    }
    const after = await scrape(server.metricsUrl!);
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, `${P}${name}`, labels) - sample(before, `${P}${name}`, labels);
    expect(delta('login_failures_total')).toBe(2);
    expect(delta('rate_limited_total', { operation: 'login', limit: 'account' })).toBe(1);
    expect(delta('rate_limited_total', { operation: 'login', limit: 'ip' })).toBe(0);
    expect(delta('rate_limited_total', { operation: 'contact', limit: 'ip' })).toBe(2);
    expect(delta('http_requests_total', { route: '/api/login', method: 'POST', status: '429' })).toBe(1);
    expect(delta('http_requests_total', { route: '/api/login', method: 'POST', status: '401' })).toBe(2);
  });

  it('count a refusal by the per-IP login limit as such', async () => {
    const limited = await startTestServer({ host, env: { METRICS_PORT: '0' }, rateLimits: { login: { limit: 1, windowMs: 60_000 } } });
    try {
      const login = { email: 'nobody@example.com', password: 'whatever it is' };
      expect((await request(limited.url, '/api/login', { json: login })).status).toBe(401);
      expect((await request(limited.url, '/api/login', { json: login })).status).toBe(429);
      const after = await scrape(limited.metricsUrl!);
      expect(sample(after, `${P}rate_limited_total`, { operation: 'login', limit: 'ip' })).toBe(1);
      expect(sample(after, `${P}login_failures_total`)).toBe(1);
    } finally {
      await limited.close();
    }
  });
});
