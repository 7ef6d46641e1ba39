/**
 * A TCP proxy in this process, to fail a database without touching the real server. Connections
 * stay open through every fault below, as on a network that fails silently:
 *
 * - `hold()` stops forwarding what clients send (it is kept, and counted in `heldBytes()`), so
 *   queries are provably in flight; answers still flow.
 * - `stall()` holds bytes both ways: nothing arrives, nothing is lost.
 * - `silence()` drops bytes both ways (counted in `droppedBytes()`): nothing arrives, nothing is reset.
 * - `release()` ends any of them: held bytes are delivered, and forwarding resumes.
 * - `cut()` drops every connection and refuses new ones; `restore()` listens again on the same port.
 * - `refuse()` drops every connection and closes each new one once it has sent its first bytes (a
 *   Postgres client's startup message), counting them (`refused()`); `release()` ends it.
 */
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  hold(): void;
  stall(): void;
  silence(): void;
  release(): void;
  /** Bytes held since the fault began (client to server, and with `stall()` also back). */
  heldBytes(): number;
  /** Bytes dropped since `silence()`, both ways. */
  droppedBytes(): number;
  refuse(): void;
  /** Connections refused since `refuse()`, only those whose first bytes contain `text` when given (e.g. an application_name). */
  refused(text?: string): number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** What happens to bytes in one direction. */
type Flow = 'pass' | 'hold' | 'drop';

/** One direction of one connection: where its bytes go, and what is held for later. */
interface Pipe {
  readonly to: Socket;
  readonly held: Buffer[];
}

export async function startTcpProxy(target: { readonly host: string; readonly port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pipes = { up: new Set<Pipe>(), down: new Set<Pipe>() };
  const flow: Record<keyof typeof pipes, Flow> = { up: 'pass', down: 'pass' };
  let held = 0;
  let dropped = 0;
  let refusing = false;
  /** The first bytes of each connection refused, as latin1 text. */
  const refused: string[] = [];

  const forward = (direction: keyof typeof pipes, pipe: Pipe) => (chunk: Buffer) => {
    switch (flow[direction]) {
      case 'pass':
        pipe.to.write(chunk);
        return;
      case 'hold':
        held += chunk.length;
        pipe.held.push(chunk);
        return;
      case 'drop':
        dropped += chunk.length;
    }
  };

  const server = createServer((client) => {
    if (refusing) {
      sockets.add(client);
      client.on('error', () => client.destroy()).on('close', () => sockets.delete(client));
      client.once('data', (chunk: Buffer) => {
        refused.push(chunk.toString('latin1'));
        client.destroy();
      });
      return;
    }
    const upstream = connect(target.port, target.host);
    const up: Pipe = { to: upstream, held: [] };
    const down: Pipe = { to: client, held: [] };
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
      pipes.up.delete(up);
      pipes.down.delete(down);
    };
    pipes.up.add(up);
    pipes.down.add(down);
    sockets.add(client).add(upstream);
    for (const socket of [client, upstream]) socket.on('error', end).on('close', end);
    client.on('data', forward('up', up));
    upstream.on('data', forward('down', down));
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
  const fault = (up: Flow, down: Flow) => {
    flow.up = up;
    flow.down = down;
    held = 0;
    dropped = 0;
  };

  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    port,
    hold: () => fault('hold', 'pass'),
    stall: () => fault('hold', 'hold'),
    silence: () => fault('drop', 'drop'),
    release: () => {
      refusing = false;
      flow.up = flow.down = 'pass';
      for (const pipe of [...pipes.up, ...pipes.down]) {
        for (const chunk of pipe.held.splice(0)) pipe.to.write(chunk);
      }
    },
    heldBytes: () => held,
    droppedBytes: () => dropped,
    refuse: () => {
      refusing = true;
      refused.length = 0;
      for (const socket of sockets) socket.destroy();
    },
    refused: (text) => (text === undefined ? refused.length : refused.filter((first) => first.includes(text)).length),
    cut,
    restore: () => listen(port),
    close: cut,
  };
}
