// @module-tag socket
import { EventEmitter } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '@sl-accounts/service/http';
// Internals of this package (users get them through hardenServer and createNodeServer).
import { cutSlowReaders, defaultMaxConnections, limitConnections, openFilesLimit } from '../src/limits.ts';

/** A socket as the cap sees it: an address, `destroy`, and a `close` event. */
class FakeSocket extends EventEmitter {
  destroyed = false;
  readonly remoteAddress: string;
  constructor(remoteAddress: string) {
    super();
    this.remoteAddress = remoteAddress;
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

function cappedServer(perAddress: number) {
  const server = new EventEmitter() as unknown as Server;
  limitConnections(server, { maxConnections: 1000, maxConnectionsPerAddress: perAddress } as never, silentLogger);
  const connect = (address: string) => {
    const socket = new FakeSocket(address);
    server.emit('connection', socket);
    return socket;
  };
  return { connect };
}

describe('the per-address connection cap', () => {
  it('counts an IPv6 peer by its /56 network, and every spelling of an address as one', () => {
    const { connect } = cappedServer(2);
    expect(connect('2001:db8:1:200::1').destroyed).toBe(false);
    expect(connect('2001:db8:1:2ff:ffff::9').destroyed).toBe(false);
    expect(connect('2001:db8:1:201::7').destroyed).toBe(true); // the same /56, third connection
    expect(connect('2001:db8:1:300::1').destroyed).toBe(false); // another /56

    expect(connect('192.0.2.1').destroyed).toBe(false);
    expect(connect('::ffff:192.0.2.1').destroyed).toBe(false);
    expect(connect('::FFFF:192.0.2.1').destroyed).toBe(true);
  });

  it('frees a place when a connection closes', () => {
    const { connect } = cappedServer(1);
    const first = connect('192.0.2.9');
    expect(connect('192.0.2.9').destroyed).toBe(true);
    first.destroy();
    expect(connect('192.0.2.9').destroyed).toBe(false);
  });
});

describe('the bound on an unread response', () => {
  it('leaves a slow but steady reader of one large write alone, and cuts it once it stops reading', async () => {
    const server = createServer((_req, res) => void res.end(Buffer.alloc(64 << 20)));
    cutSlowReaders(server, { unreadResponseTimeoutMs: 2_000 }, silentLogger);
    let cutAt: number | undefined;
    server.on('connection', (socket) => socket.once('close', () => (cutAt = performance.now())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const socket = connect({ host: '127.0.0.1', port });
      socket.on('error', () => {});
      socket.pause();
      socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
      // What is buffered, every 20 ms (~3 MB/s), for twice the bound: far below what loopback takes,
      // so the one write of 64 MB stays incomplete throughout, and the kernel takes its bytes in
      // steps (when a third of its ~4 MB send buffer is free, about every 0.5 s here).
      let received = 0;
      const reading = setInterval(() => {
        for (let chunk: Buffer | null; (chunk = socket.read() as Buffer | null); ) received += chunk.length;
      }, 20);
      const readFor = performance.now();
      await vi.waitFor(() => expect(performance.now() - readFor).toBeGreaterThan(4_000), { timeout: 10_000, interval: 100 });
      clearInterval(reading);
      const stoppedAt = performance.now();
      expect(cutAt, `cut while reading, after ${received} bytes`).toBeUndefined();
      expect(received).toBeGreaterThan(4_000_000);
      expect(received).toBeLessThan(64 << 20);
      // Stopped reading: cut (by the server; this client does not read, so it does not see it).
      await vi.waitFor(() => expect(cutAt).toBeDefined(), { timeout: 10_000, interval: 100 });
      expect(cutAt! - stoppedAt).toBeGreaterThan(1_000);
      expect(cutAt! - stoppedAt).toBeLessThan(10_000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
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
