/**
 * A peer that stops reading a response does not keep its connection: once no byte has been taken for
 * UNREAD_RESPONSE_TIMEOUT_MS the server cuts it, logs the count and counts it in the metrics. The
 * response is the docs bundle (4.35 MB), asked for three times on one connection so that it cannot
 * all fit in the kernel's buffers, by a raw socket that never reads.
 */
// @module-tag socket
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { capturingLogger } from '../support/logger.ts';
import { poll } from '../support/poll.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

function openConnections(server: RunningServer): Promise<number> {
  return new Promise((resolve, reject) => server.server.getConnections((err, count) => (err ? reject(err) : resolve(count))));
}

async function bundlePath(url: string): Promise<string> {
  const html = await (await fetch(`${url}/docs/api`)).text();
  const bundle = [...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map((m) => m[1]!).find((src) => /scalar\.[^/]+\.js$/.test(src));
  expect(bundle, html).toBeDefined();
  return new URL(bundle!, url).pathname;
}

describe.each(HOST_KINDS)('a peer that stops reading, on the %s host', (host) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('is cut once nothing moved for UNREAD_RESPONSE_TIMEOUT_MS, logged and counted', async () => {
    const { logger, lines } = capturingLogger('info');
    server = await startTestServer({ host, logger, env: { UNREAD_RESPONSE_TIMEOUT_MS: '1000', METRICS_PORT: '0' } });
    const path = await bundlePath(server.url);
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(server.url).port) });
    socket.on('error', () => {});
    socket.pause();
    const ask = `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;
    socket.write(ask.repeat(3));
    await poll(() => openConnections(server!), (n) => n === 1, 10_000);
    const cut = await poll(() => openConnections(server!), (n) => n === 0, 10_000);
    expect(cut).toBe(0);

    expect(lines.map((l) => JSON.parse(l) as { msg: string; cut?: number })).toContainEqual(
      expect.objectContaining({ msg: 'cut connections whose peer stopped reading the response', cut: 1 }),
    );
    const metrics = await (await fetch(server.metricsUrl!)).text();
    expect(metrics).toMatch(/^sl_accounts_slow_readers_cut_total 1$/m);
    // The client finds its connection reset, never the three answers whole.
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.resume();
    await closed;
    expect(received).toBeLessThan(3 * 4_000_000);

    // A client that reads gets the bundle whole: the bound leaves working readers alone.
    const whole = await fetch(`${server.url}${path}`, { headers: { 'accept-encoding': 'identity' } });
    expect((await whole.arrayBuffer()).byteLength).toBeGreaterThan(4_000_000);
  });
});
