/**
 * The metrics of a real server process (`METRICS_PORT`, as `pnpm start` runs it) on Postgres: the
 * pool's use, and a database that stops answering shows as 503s and store failures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStore } from '@sl-accounts/store-contract';
import { locatePostgres } from '@sl-accounts/store-postgres/testing';
import { request } from '../support/client.ts';
import { sample, scrape } from '../support/metrics.ts';
import { poll } from '../support/poll.ts';
import { startProxiedServer, type ProxiedServer } from '../support/proxied-server.ts';

const postgres = await testStore('postgres', locatePostgres);
const P = 'sl_accounts_';

describe.skipIf(postgres.skip !== undefined)(`metrics of a server process (${postgres.title})`, () => {
  let running: ProxiedServer;
  let metricsUrl: string;
  beforeAll(async () => {
    running = await startProxiedServer({ METRICS_PORT: '0', DB_TIMEOUT_MS: '1000' });
    const listening = running.app
      .output()
      .split('\n')
      .map((line) => (line.startsWith('{') ? (JSON.parse(line) as { msg?: string; metrics?: string }) : {}))
      .find((entry) => entry.msg === 'listening');
    metricsUrl = listening!.metrics!;
  });
  afterAll(() => running?.close());

  it('names the metrics URL in the start-up line, on loopback', () => {
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  });

  it('reports the pool, and a database that does not answer as 503s and store failures, until it answers again', async () => {
    expect((await request(running.app.url, '/api/health')).status).toBe(200);
    const before = await scrape(metricsUrl);
    expect(sample(before, `${P}db_pool_connections`)).toBeGreaterThanOrEqual(1);
    expect(sample(before, `${P}db_pool_idle_connections`)).toBeGreaterThanOrEqual(0);
    expect(sample(before, `${P}db_pool_waiting_requests`)).toBe(0);

    await running.proxy.cut();
    try {
      expect((await request(running.app.url, '/api/health')).status).toBe(503);
      const contact = await request(running.app.url, '/api/contact', { json: { name: 'Ada', email: 'ada@example.com', message: 'Is the database there?' } });
      expect(contact.status).toBe(503);
    } finally {
      await running.proxy.restore();
    }
    const after = await scrape(metricsUrl);
    const delta = (name: string, labels: Record<string, string>) => sample(after, `${P}${name}`, labels) - sample(before, `${P}${name}`, labels);
    expect(delta('store_unavailable_total', { use_case: 'health' })).toBe(1);
    expect(delta('store_unavailable_total', { use_case: 'contact' })).toBe(1);
    expect(delta('http_requests_total', { route: '/api/health', method: 'GET', status: '503' })).toBe(1);
    expect(delta('http_requests_total', { route: '/api/contact', method: 'POST', status: '503' })).toBe(1);
    // Back to normal once the database answers.
    expect((await poll(() => request(running.app.url, '/api/health'), (res) => res.status === 200, 10_000)).status).toBe(200);
  });
});
