/**
 * What one client may hold of a server facing the internet: slow headers and slow bodies are cut
 * off after their timeouts, one address cannot hold more than its share of connections, and the
 * server never holds more than its total cap, so another client is still answered.
 */
// @module-tag socket
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { poll } from '../support/poll.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

/** A connection from `localAddress` that has sent `head` and nothing more; resolves once connected. */
async function openSlow(url: string, head: string, localAddress = '127.0.0.1'): Promise<Socket> {
  const { port } = new URL(url);
  const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress });
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(head);
  return socket;
}

/** Resolves with what the server sent once it closes the connection, or `null` after `ms`. */
function closedWithin(socket: Socket, ms: number): Promise<string | null> {
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

/** GET /api/health from `localAddress`, on a fresh connection. */
function healthFrom(url: string, localAddress: string): Promise<number> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: Number(port), path: '/api/health', localAddress, agent: false }, (res) => {
      res.resume().on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject).end();
  });
}

function openConnections(server: RunningServer): Promise<number> {
  return new Promise((resolve, reject) => server.server.getConnections((err, count) => (err ? reject(err) : resolve(count))));
}

/**
 * How many connections the server holds once it has accepted (or refused) every one of `sockets`:
 * when its count and the clients' agree. A client connects before the server has accepted it.
 */
async function settled(server: RunningServer, sockets: readonly Socket[]): Promise<number> {
  const open = () => sockets.filter((s) => !s.closed).length;
  await poll(async () => (await openConnections(server)) === open(), Boolean, 10_000);
  return openConnections(server);
}

describe.each(HOST_KINDS)('connection limits on the %s host', (host) => {
  let server: RunningServer | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await server?.close();
    server = undefined;
  });

  it('closes a connection that sends its headers slowly once HEADERS_TIMEOUT_MS has passed', async () => {
    server = await startTestServer({ host, env: { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' } });
    const socket = await openSlow(server.url, 'GET /api/health HTTP/1.1\r\nHost: x\r\n');
    sockets.push(socket);
    const ticker = setInterval(() => socket.write('X-Slow: 1\r\n'), 200);
    const received = await closedWithin(socket, 8_000);
    clearInterval(ticker);
    expect(received).not.toBeNull();
    expect(received).toMatch(/^(HTTP\/1\.1 408 |$)/);
  });

  it('closes a connection whose body arrives one byte at a time once REQUEST_TIMEOUT_MS has passed', async () => {
    server = await startTestServer({ host, env: { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' } });
    const body = JSON.stringify({ name: 'Slow', email: 'slow@example.com', message: 'one byte at a time, forever' });
    const socket = await openSlow(server.url, `POST /api/contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    sockets.push(socket);
    let sent = 0;
    const ticker = setInterval(() => sent < body.length - 1 && socket.write(body[sent++]!), 200);
    const received = await closedWithin(socket, 8_000);
    clearInterval(ticker);
    expect(received).not.toBeNull();
    // Cut off before the body was complete: no answer from the API.
    expect(received).not.toMatch(/^HTTP\/1\.1 2/);
  });

  it('holds at most MAX_CONNECTIONS_PER_ADDRESS slow connections from one address, and answers another', async () => {
    server = await startTestServer({ host, env: { MAX_CONNECTIONS_PER_ADDRESS: '40' } });
    const attempts = await Promise.all(Array.from({ length: 300 }, () => openSlow(server!.url, 'GET /api/health HTTP/1.1\r\nHost: x\r\n')));
    sockets.push(...attempts);
    const kept = await settled(server, attempts);
    expect(kept).toBeLessThanOrEqual(40);
    expect(kept).toBeGreaterThan(0);
    expect(await healthFrom(server.url, '127.0.0.2')).toBe(200);
    // The address's own share is still served once a slot frees.
    for (const socket of attempts) socket.destroy();
    const status = () => healthFrom(server!.url, '127.0.0.1').catch(() => 0); // refused until the server sees them go
    expect(await poll(status, (s) => s === 200, 5_000)).toBe(200);
  });

  it('holds at most MAX_CONNECTIONS in all', async () => {
    server = await startTestServer({ host, env: { MAX_CONNECTIONS: '30', MAX_CONNECTIONS_PER_ADDRESS: '0' } });
    const attempts = await Promise.all(Array.from({ length: 60 }, (_, i) => openSlow(server!.url, 'GET / HTTP/1.1\r\n', `127.0.0.${2 + (i % 50)}`)));
    sockets.push(...attempts);
    const kept = await settled(server, attempts);
    expect(kept).toBeLessThanOrEqual(30);
    expect(kept).toBeGreaterThan(0);
  });
});
