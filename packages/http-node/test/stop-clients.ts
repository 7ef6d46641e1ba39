/**
 * Raw HTTP clients on a thread of their own, for the stop's tests: they connect and send while the
 * test's own thread, which runs the server, is blocked, as a busy event loop would be. So a request
 * can be in the listen backlog, or unread on an accepted connection, when the stop begins, on any
 * machine.
 */
import { Worker } from 'node:worker_threads';

/** What one connection received, and how it ended. */
export interface Received {
  /** Every byte the server sent, as text. */
  readonly text: string;
  /** The error the connection ended with (`ECONNRESET`), or `undefined` for a clean end. */
  readonly error: string | undefined;
}

const WORKER = `
const net = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData.flag);
const sockets = [];
const state = [];
function open(port) {
  const socket = net.connect({ port, host: '127.0.0.1' });
  const entry = { text: '', error: undefined, closed: false, connected: new Promise((resolve) => socket.once('connect', resolve)) };
  socket.setEncoding('latin1');
  socket.on('data', (chunk) => (entry.text += chunk));
  socket.on('error', (err) => (entry.error = err.code || err.message));
  socket.on('close', () => { entry.closed = true; report(); });
  sockets.push(socket);
  state.push(entry);
  return entry.connected;
}
const waiting = [];
function report() {
  for (const w of waiting.splice(0)) {
    if (w.which.every((i) => state[i].closed)) parentPort.postMessage({ id: w.id, result: w.which.map((i) => ({ text: state[i].text, error: state[i].error })) });
    else waiting.push(w);
  }
}
async function write(writes, done) {
  await Promise.all(writes.map(([i, data]) => new Promise((resolve) => sockets[i].write(data, 'latin1', resolve))));
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
  done();
}
parentPort.on('message', async ({ id, op, port, count, writes, which }) => {
  const done = (result) => parentPort.postMessage({ id, result });
  if (op === 'open') {
    const first = sockets.length;
    await Promise.all(Array.from({ length: count }, () => open(port)));
    done(Array.from({ length: count }, (_, i) => first + i));
  } else if (op === 'open-and-write') {
    const first = sockets.length;
    await Promise.all(writes.map(() => open(port)));
    await write(writes.map(([, data], i) => [first + i, data]), () => done(writes.map((_, i) => first + i)));
  } else if (op === 'write') {
    await write(writes, () => done(undefined));
  } else if (op === 'received') {
    done(which.map((i) => ({ text: state[i].text, error: state[i].error, closed: state[i].closed })));
  } else if (op === 'closed') {
    waiting.push({ id, which });
    report();
  }
});
`;

export class StopClients {
  readonly #flag = new SharedArrayBuffer(4);
  readonly #worker = new Worker(WORKER, { eval: true, workerData: { flag: this.#flag } });
  readonly #pending = new Map<number, (result: unknown) => void>();
  #next = 0;

  constructor() {
    this.#worker.on('message', ({ id, result }: { id: number; result: unknown }) => {
      this.#pending.get(id)?.(result);
      this.#pending.delete(id);
    });
  }

  #ask<T>(message: Record<string, unknown>): Promise<T> {
    const id = this.#next++;
    const answer = new Promise<T>((resolve) => this.#pending.set(id, resolve as (result: unknown) => void));
    this.#worker.postMessage({ id, ...message });
    return answer;
  }

  /** Opens `count` connections to `port`; resolves with their indexes once connected. */
  open(port: number, count: number): Promise<number[]> {
    return this.#ask({ op: 'open', port, count });
  }

  /**
   * Blocks this thread (its event loop with it) until the clients have handed every write to the
   * kernel; `writes` are `[connection index, bytes]`. Resolves once the worker answers: do what must
   * happen before the server reads them (the stop) before awaiting it, since any await lets it read.
   */
  writeWhileBlocked(writes: readonly (readonly [number, string])[]): Promise<undefined> {
    return this.#blockUntilWritten({ op: 'write', writes });
  }

  /**
   * Each request on a new connection to `port`, connected and written while this thread is blocked:
   * the server can then find them only in its listen backlog. Resolves with the connections' indexes.
   */
  connectAndWriteWhileBlocked(port: number, requests: readonly string[]): Promise<number[]> {
    return this.#blockUntilWritten({ op: 'open-and-write', port, writes: requests.map((data) => [0, data]) });
  }

  #blockUntilWritten<T>(message: Record<string, unknown>): Promise<T> {
    const flag = new Int32Array(this.#flag);
    Atomics.store(flag, 0, 0);
    const done = this.#ask<T>(message);
    if (Atomics.wait(flag, 0, 0, 10_000) === 'timed-out') throw new Error('the clients did not write within 10 s');
    return done;
  }

  /** Writes without blocking; resolves once written. */
  write(writes: readonly (readonly [number, string])[]): Promise<undefined> {
    return this.#ask({ op: 'write', writes });
  }

  /** What the connections received so far, and whether they are closed. */
  received(which: readonly number[]): Promise<(Received & { readonly closed: boolean })[]> {
    return this.#ask({ op: 'received', which });
  }

  /** What the connections received, once every one of them is closed; rejects if one is still open after 10 s. */
  async closed(which: readonly number[]): Promise<Received[]> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`connections ${which.join(', ')}: not all closed within 10 s`)), 10_000);
    });
    try {
      return await Promise.race([this.#ask<Received[]>({ op: 'closed', which }), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async end(): Promise<void> {
    await this.#worker.terminate();
  }
}
