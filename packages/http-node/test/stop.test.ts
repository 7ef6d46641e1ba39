/**
 * The graceful stop drops nothing that reached the socket. The clients run on a thread of their own
 * (stop-clients.ts) and send while this thread, which runs the server, is blocked: the stop then
 * begins with requests in the listen backlog, or unread on accepted connections, as it does when
 * SIGTERM comes while the event loop is busy, whatever the speed of the machine.
 */
// @module-tag socket
import type { ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendAnswer } from '../src/convert.ts';
import { createNodeServer, type NodeServer } from '../src/server.ts';
import { StopClients, type Received } from './stop-clients.ts';

const GET_OK = 'GET /ok HTTP/1.1\r\nHost: test\r\n\r\n';
const LIMITS = {
  headersTimeoutMs: 60_000,
  requestTimeoutMs: 60_000,
  // Longer than any test: a connection closed early was closed by the stop, not by node's keep-alive timer.
  keepAliveTimeoutMs: 60_000,
  unreadResponseTimeoutMs: 60_000,
  maxConnections: 1_000,
  maxConnectionsPerAddress: 0,
};
/** Longer than any test, so a stop that waits for its drain bound fails it. */
const LONG_DRAIN_MS = 60_000;

interface Started {
  readonly node: NodeServer;
  readonly port: number;
  /** The server's side of each connection, in the order accepted. */
  readonly sockets: Socket[];
  /** Requests seen by path. */
  readonly seen: Map<string, number>;
  /** Ends every `/stream` answer (their headers and a first chunk went out at once). */
  endStreams(): void;
  /** The responses `/hang` never answered. */
  readonly hung: ServerResponse[];
}

let clients: StopClients | undefined;
let running: NodeServer | undefined;
afterEach(async () => {
  await clients?.end();
  running?.server.closeAllConnections();
  running?.server.close();
  clients = running = undefined;
});

async function start(): Promise<Started> {
  const seen = new Map<string, number>();
  const streams: ServerResponse[] = [];
  const hung: ServerResponse[] = [];
  const node = createNodeServer((req, res) => {
    const path = req.url ?? '';
    seen.set(path, (seen.get(path) ?? 0) + 1);
    if (path === '/stream') {
      res.writeHead(200, { 'content-type': 'text/plain' }).write('a');
      streams.push(res);
    } else if (path === '/hang') hung.push(res);
    else setImmediate(() => res.end('ok'));
  }, { limits: LIMITS });
  running = node;
  const sockets: Socket[] = [];
  node.server.on('connection', (socket: Socket) => sockets.push(socket));
  await new Promise<void>((resolve) => node.server.listen(0, '127.0.0.1', resolve));
  clients = new StopClients();
  return { node, port: (node.server.address() as AddressInfo).port, sockets, seen, endStreams: () => streams.splice(0).forEach((res) => res.end()), hung };
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The status line and headers of each answer in `text`. */
function answers({ text }: Received): { status: number; close: boolean }[] {
  return [...text.matchAll(/HTTP\/1\.1 (\d{3}) [^\r]*\r\n((?:[^\r]+\r\n)*)\r\n/g)].map((m) => ({ status: Number(m[1]), close: /^connection: close\r$/im.test(m[2]!) }));
}

describe('the graceful stop', () => {
  it('answers the requests still in the listen backlog when it begins', async () => {
    const { node, port } = await start();
    const written = clients!.connectAndWriteWhileBlocked(port, Array.from({ length: 20 }, () => GET_OK));
    // Before any await: not one of the 20 connections is accepted yet.
    const stopped = node.close(LONG_DRAIN_MS);
    const received = await clients!.closed(await written);
    expect(received.map((r) => [r.error, answers(r)])).toEqual(received.map(() => [undefined, [{ status: 200, close: true }]]));
    await stopped;
  });

  it('answers the requests unread on accepted connections, new or kept alive', async () => {
    const { node, port, sockets } = await start();
    const fresh = await clients!.open(port, 5);
    const kept = await clients!.open(port, 5);
    await clients!.write(kept.map((i) => [i, GET_OK]));
    await until(async () => (await clients!.received(kept)).every((r) => answers(r).length === 1), 'the first answers on the kept-alive connections');
    await until(() => sockets.length === 10, 'all 10 accepted');
    const written = clients!.writeWhileBlocked([...fresh, ...kept].map((i) => [i, GET_OK]));
    // Before any await: the server has read none of the 10 requests.
    const stopped = node.close(LONG_DRAIN_MS);
    await written;
    const received = await clients!.closed([...fresh, ...kept]);
    expect(received.slice(0, 5).map((r) => [r.error, answers(r)])).toEqual(fresh.map(() => [undefined, [{ status: 200, close: true }]]));
    expect(received.slice(5).map((r) => [r.error, answers(r)])).toEqual(
      kept.map(() => [
        undefined,
        [
          { status: 200, close: false },
          { status: 200, close: true },
        ],
      ]),
    );
    await stopped;
  });

  it('closes connections that received nothing since their last answer at once, and answers a request half received', async () => {
    const { node, port, sockets } = await start();
    const [silent, partial, kept] = await clients!.open(port, 3);
    await clients!.write([
      [partial!, 'GET /ok HTTP/1.1\r\nHost: te'],
      [kept!, GET_OK],
    ]);
    await until(async () => answers((await clients!.received([kept!]))[0]!).length === 1, 'the kept-alive connection answered');
    await until(() => sockets.filter((s) => s.bytesRead > 0).length === 2, 'the half request read');
    const stopped = node.close(LONG_DRAIN_MS);
    const [quiet, idle] = await clients!.closed([silent!, kept!]);
    expect([quiet!.error, quiet!.text]).toEqual([undefined, '']);
    expect([idle!.error, answers(idle!)]).toEqual([undefined, [{ status: 200, close: false }]]);
    expect((await clients!.received([partial!]))[0]!.closed).toBe(false);
    await clients!.write([[partial!, 'st\r\n\r\n']]);
    const [completed] = await clients!.closed([partial!]);
    expect([completed!.error, answers(completed!)]).toEqual([undefined, [{ status: 200, close: true }]]);
    await stopped;
  });

  it('closes a kept-alive connection once the answer whose headers left before the stop is done, answering a request sent on it since with Connection: close', async () => {
    const { node, port, seen, endStreams } = await start();
    const [quiet, busy] = await clients!.open(port, 2);
    await clients!.write([
      [quiet!, 'GET /stream HTTP/1.1\r\nHost: test\r\n\r\n'],
      [busy!, 'GET /stream HTTP/1.1\r\nHost: test\r\n\r\n'],
    ]);
    await until(async () => (await clients!.received([quiet!, busy!])).every((r) => answers(r).length === 1), 'both streams begun');
    const stopped = node.close(LONG_DRAIN_MS);
    await clients!.write([[busy!, GET_OK]]);
    await until(() => seen.get('/ok') === 1, 'the request sent after the stop began');
    endStreams();
    const received = await clients!.closed([quiet!, busy!]);
    expect(received.map((r) => [r.error, answers(r)])).toEqual([
      [undefined, [{ status: 200, close: false }]],
      [
        undefined,
        [
          { status: 200, close: false },
          { status: 200, close: true },
        ],
      ],
    ]);
    await stopped;
  });

  it('answers 503 to a request still unanswered at the drain bound, and drops the host’s late answer', async () => {
    const { node, port, seen, hung } = await start();
    const [waiting] = await clients!.open(port, 1);
    await clients!.write([[waiting!, 'GET /hang HTTP/1.1\r\nHost: test\r\n\r\n']]);
    await until(() => seen.get('/hang') === 1, 'the request handed to the listener');
    const stopped = node.close(200);
    const [received] = await clients!.closed([waiting!]);
    expect([received!.error, answers(received!)]).toEqual([undefined, [{ status: 503, close: true }]]);
    expect(received!.text).toContain(JSON.stringify({ ok: false, error: 'The service is temporarily unavailable', code: 'stopping' }));
    await stopped;
    expect(() => sendAnswer(hung[0]!, { status: 200, headers: {}, body: 'late' })).not.toThrow();
  });
});
