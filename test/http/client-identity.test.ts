/**
 * Which client a limit counts, over HTTP: IPv6 networks, every spelling of one address, and
 * forwarded values that are not addresses (issue 9).
 */
import { afterEach, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { request } from '../support/client.ts';
import { capturingLogger } from '../support/logger.ts';
import { MATRIX, describeEachServer, startTestServer } from '../support/server.ts';

const CONTACT = { name: 'Ada', email: 'ada@example.com', message: 'Hello there, a question.' };

describeEachServer('client identity', MATRIX, ({ host, store }) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const contact = (ip: string | undefined) => request(server!.url, '/api/contact', { json: CONTACT, ...(ip === undefined ? {} : { ip }) });

  it('IPv6 addresses of one /56 are one client: rotating through a /64 gains nothing', async () => {
    server = await startTestServer({ host, store, env: { TRUST_PROXY: '1' } });
    const statuses = [];
    for (let i = 1; i <= 12; i++) statuses.push((await contact(`2001:db8:1:2::${i.toString(16)}`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    expect((await contact('2001:db8:1:fe::1')).status).toBe(429);
    expect((await contact('2001:db8:1:100::1')).status).toBe(200);
  });

  it('IPV6_PREFIX sets the network size', async () => {
    server = await startTestServer({ host, store, env: { TRUST_PROXY: '1', IPV6_PREFIX: '64' } });
    for (let i = 1; i <= 5; i++) expect((await contact(`2001:db8:1:2::${i}`)).status).toBe(200);
    expect((await contact('2001:db8:1:2::ff')).status).toBe(429);
    expect((await contact('2001:db8:1:3::1')).status).toBe(200);
  });

  it('every spelling of a limited address is that address', async () => {
    server = await startTestServer({ host, store, env: { TRUST_PROXY: '1' } });
    for (let i = 0; i < 5; i++) expect((await contact('5.5.5.5')).status).toBe(200);
    for (const spelling of ['5.5.5.5', '::ffff:5.5.5.5', '::FFFF:5.5.5.5', '0:0:0:0:0:ffff:505:505', '5.5.5.5:1234', '[::ffff:5.5.5.5]:443']) {
      expect((await contact(spelling)).status, spelling).toBe(429);
    }
  });

  it('a forwarded value that is not an IP address counts as the socket address, with a warning; never a 500', async () => {
    const { logger, lines } = capturingLogger('warn');
    server = await startTestServer({ host, store, logger, env: { TRUST_PROXY: '1' } });
    // Leading zeros are not an address either: other parsers read them as octal.
    const junk = ['x'.repeat(2_700), 'not-an-ip', '<script>', '005.005.005.005', ''];
    const statuses = [];
    for (const ip of junk) statuses.push((await contact(ip)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    // They all were the socket's address (127.0.0.1), whose budget they spent:
    expect((await contact(undefined)).status).toBe(429);
    expect((await contact('127.0.0.1')).status).toBe(429);
    expect((await contact('192.0.2.1')).status).toBe(200);
    const warnings = lines.map((l) => JSON.parse(l) as { msg: string; entry: string }).filter((l) => l.msg.includes('not an IP address'));
    expect(warnings.map((w) => w.entry)).toEqual(['x'.repeat(100), 'not-an-ip', '<script>', '005.005.005.005', '']);
  });
});
