/**
 * Framing RFC 9112 calls faulty is refused with 400 and the connection closed, on every node host
 * (the check sits in the composition root's server, under the Koa adapter and plain node:http alike):
 * two `Host` headers, an absolute-form target whose authority differs from `Host`, and
 * `Transfer-Encoding` on an HTTP/1.0 request. Each is sent with a second request pipelined behind it,
 * which must never be answered.
 */
// @module-tag socket
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { capturingLogger } from '../support/logger.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

/** Sends `bytes` on a fresh connection; resolves with all the server sent once it closes (or after 10 s, marked). */
async function exchange(url: string, bytes: string): Promise<{ readonly text: string; readonly closed: boolean }> {
  const socket = connect({ host: '127.0.0.1', port: Number(new URL(url).port) });
  socket.on('error', () => {});
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.write(bytes);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, 10_000);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });
}

const NEXT = 'GET /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';
// Not split on lines: a pipelined answer's status line follows the previous body directly.
const statusLines = (text: string) => text.match(/HTTP\/1\.[01] \d{3}[^\r]*/g) ?? [];

describe.each(HOST_KINDS)('faulty framing on the %s host', (host) => {
  let server: RunningServer;
  const { logger, lines } = capturingLogger('info');
  beforeAll(async () => void (server = await startTestServer({ host, logger })));
  afterAll(() => server.close());

  const refused = async (request: string, error: RegExp) => {
    const { text, closed } = await exchange(server.url, request + NEXT);
    expect(closed).toBe(true);
    expect(statusLines(text), text).toEqual([expect.stringMatching(/^HTTP\/1\.[01] 400 /)]);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text).toMatch(/\r\nx-request-id: \S+\r\n/i);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as unknown;
    expect(body).toEqual({ ok: false, error: expect.stringMatching(error), code: expect.any(String) });
  };

  it('refuses two Host headers', async () => {
    await refused('GET /api/health HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n', /Host/);
  });

  it('refuses two Host headers spelt differently', async () => {
    await refused('GET /api/health HTTP/1.1\r\nhost: a.example\r\nHOST: a.example\r\n\r\n', /Host/);
  });

  it('refuses an absolute-form target whose authority differs from Host, and logs it without the query', async () => {
    await refused('GET http://a.example/api/health?token=s3cret HTTP/1.1\r\nHost: b.example\r\n\r\n', /Host/);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.fault);
    expect(logged.at(-1)).toMatchObject({ method: 'GET', path: '/api/health', status: 400, fault: 'Host does not match the request target' });
    expect(lines.join('\n')).not.toContain('s3cret');
    await refused('GET http://a.example:8080/api/health HTTP/1.1\r\nHost: a.example\r\n\r\n', /Host/);
    await refused('GET http://a.example/api/health HTTP/1.1\r\nHost: user@a.example\r\n\r\n', /Host/);
    await refused('GET http://a.example/api/health HTTP/1.1\r\nHost: a.example/x\r\n\r\n', /Host/);
  });

  it('refuses Transfer-Encoding on an HTTP/1.0 request', async () => {
    await refused('POST /api/contact HTTP/1.0\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n', /Transfer-Encoding/);
  });

  it('answers well-framed requests as before, absolute-form included', async () => {
    const plain = await exchange(server.url, 'GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n' + NEXT);
    expect(statusLines(plain.text)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
    const absolute = await exchange(server.url, 'GET http://A.example:80/api/health HTTP/1.1\r\nHost: a.EXAMPLE\r\n\r\n' + NEXT);
    expect(statusLines(absolute.text)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
    const old = await exchange(server.url, 'GET /api/health HTTP/1.0\r\nHost: localhost\r\n\r\n');
    expect(statusLines(old.text)).toEqual(['HTTP/1.1 200 OK']);
  });
});
