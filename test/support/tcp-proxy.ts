/**
 * A TCP proxy in this process, to fail a database without touching the real server:
 *
 * - `hold()` keeps every connection open but stops forwarding what clients send (it is kept, and
 *   counted in `heldBytes()`), so queries are provably in flight; `release()` forwards it all.
 * - `cut()` drops every connection and refuses new ones; `restore()` listens again on the same port.
 */
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  hold(): void;
  release(): void;
  /** Bytes clients sent since `hold()` that were not forwarded. */
  heldBytes(): number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { readonly host: string; readonly port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const flushes = new Set<() => void>();
  let holding = false;
  let held = 0;

  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const pending: Buffer[] = [];
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
      flushes.delete(flush);
    };
    const flush = () => {
      for (const chunk of pending.splice(0)) upstream.write(chunk);
    };
    flushes.add(flush);
    sockets.add(client).add(upstream);
    for (const socket of [client, upstream]) socket.on('error', end).on('close', end);
    client.on('data', (chunk: Buffer) => {
      if (holding) {
        held += chunk.length;
        pending.push(chunk);
      } else {
        upstream.write(chunk);
      }
    });
    upstream.pipe(client);
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const cut = async () => {
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    port,
    hold: () => {
      holding = true;
      held = 0;
    },
    release: () => {
      holding = false;
      for (const flush of flushes) flush();
    },
    heldBytes: () => held,
    cut,
    restore: () => listen(port),
    close: cut,
  };
}
