/**
 * Shared pieces of the benchmark: child processes, load runs through autocannon, medians.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `BENCH_QUICK=1`: every section once, with loads of about a second and the warm-ups and idle
 * waits cut short, so that a section that breaks shows within a minute (test/bench-quick.test.ts
 * runs it in `pnpm test`). Its figures say only that each section runs: the report and results.json
 * are left alone.
 */
export const QUICK = process.env.BENCH_QUICK === '1';
/** A warm-up or idle wait of `seconds`, or a fraction of a second in the quick mode. */
export const warmUp = (seconds: number) => (QUICK ? 0.3 : seconds);

/** The node flags of `pnpm start`, so the benchmark runs the service exactly as users do. */
export const START_FLAGS: readonly string[] = (() => {
  const start = (JSON.parse(readFileSync(new URL('package.json', `file://${ROOT}`), 'utf8')) as { scripts: { start: string } }).scripts.start;
  return start.split(/\s+/).filter((word) => word.startsWith('--'));
})();

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Whether `port` (0: any) can be listened on at 127.0.0.1 now; the port it got, or `null`. */
function tryPort(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const srv = createServer().listen(port, '127.0.0.1', () => {
      const { port: got } = srv.address() as { port: number };
      srv.close(() => resolve(got));
    });
    srv.once('error', () => resolve(null));
  });
}

/**
 * A port free at 127.0.0.1: any the system gives, or with `BENCH_PORTS=<from>-<to>` one of those
 * (on a machine shared with others, each keeps to its own range).
 */
export async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.BENCH_PORTS ?? '');
  if (!range) return (await tryPort(0))!;
  const [from, to] = [Number(range[1]), Number(range[2])];
  // Round the range from the port after the last one given: a server spawned just now may not listen yet.
  const size = to - from + 1;
  const start = last >= from && last <= to ? last - from + 1 : 0;
  for (let i = 0; i < size; i++) {
    const port = from + ((start + i) % size);
    if ((await tryPort(port)) !== null) return (last = port);
  }
  throw new Error(`no free port in BENCH_PORTS=${process.env.BENCH_PORTS}`);
}

/** The port of BENCH_PORTS given last. */
let last = 0;

/** Children still running; killed if the benchmark exits early, so no server outlives it. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface Child {
  readonly url: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/** Spawns `node <script>` with PORT set, and waits until GET `readyPath` answers. */
export async function spawnServer(script: string, env: Record<string, string>, readyPath = '/api/health', execArgv: string[] = []): Promise<Child> {
  const port = await freePort();
  const child = spawn(process.execPath, [...execArgv, script], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  // BENCH_START_MS: longer on a loaded machine, where a new PGlite directory alone may take 30 s.
  const deadline = Date.now() + Number(process.env.BENCH_START_MS ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited: ${stderr}`);
    try {
      const res = await fetch(url + readyPath);
      await res.arrayBuffer();
      if (res.status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${script} did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

export interface LoadResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly total: number;
  readonly non2xx: number;
  readonly errors: number;
  /** CPU time (user + system) the server process spent per request, µs; when its pid was given (Linux). */
  readonly cpuUs?: number;
}

export type LoadOptions = Omit<autocannon.Options, 'url'>;

/** CPU seconds (user + system, all threads) a process has used, from /proc; `undefined` without /proc. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/**
 * Waits until the process `pid` is idle (under a twentieth of a core over 200 ms), at most `ms`.
 * A load run ends with requests still in flight, which the server goes on answering: logins at
 * 600,000 iterations leave up to a connection's worth of hashes (~0.1 s of CPU each) that would
 * otherwise run into the next measurement, the next login run's or the hashing limit's.
 */
export async function settled(pid: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const before = cpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = cpuSeconds(pid);
    if (before === undefined || after === undefined || after - before < 0.01 || Date.now() >= deadline) return;
  }
}

/** Runs autocannon against `url`; with `pid`, also measures that server's CPU time per request. */
export async function load(url: string, options: LoadOptions, pid?: number): Promise<LoadResult> {
  const before = pid === undefined ? undefined : cpuSeconds(pid);
  const r = await autocannon({ url, ...options });
  const after = pid === undefined ? undefined : cpuSeconds(pid);
  const seconds = r.duration || 1;
  return {
    rps: r.requests.total / seconds,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    ...(before !== undefined && after !== undefined && r.requests.total > 0 ? { cpuUs: ((after - before) / r.requests.total) * 1e6 } : {}),
  };
}

/** An answer as RawClient reads it: the status, the head (status line and headers) and the body. */
export interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

/**
 * One keep-alive HTTP/1.1 connection that sends one request at a time and reads the answer: a
 * client with far less overhead per request than fetch, for timing a server's answers closely.
 */
export class RawClient {
  readonly #socket: Socket;
  readonly #host: string;
  #buffer = Buffer.alloc(0);
  #waiting: ((answer: RawAnswer) => void) | undefined;
  #failed: ((error: Error) => void) | undefined;

  constructor(url: string) {
    const { hostname, port, host } = new URL(url);
    this.#host = host;
    this.#socket = connect(Number(port), hostname);
    this.#socket.setNoDelay(true);
    this.#socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#parse();
    });
    this.#socket.on('error', (error) => this.#failed?.(error));
    this.#socket.on('close', () => this.#failed?.(new Error('connection closed')));
  }

  request(method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<RawAnswer> {
    if (this.#waiting) throw new Error('one request at a time');
    const lines = Object.entries({ host: this.#host, ...headers, ...(method === 'POST' ? { 'content-length': String(Buffer.byteLength(body)) } : {}) }).map(([k, v]) => `${k}: ${v}\r\n`);
    return new Promise((resolve, reject) => {
      this.#waiting = resolve;
      this.#failed = reject;
      this.#socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n${body}`);
    });
  }

  close(): void {
    this.#failed = undefined;
    this.#socket.destroy();
  }

  #parse() {
    const end = this.#buffer.indexOf('\r\n\r\n');
    if (end < 0 || !this.#waiting) return;
    const head = this.#buffer.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.#buffer.length < end + 4 + length) return;
    const body = this.#buffer.subarray(end + 4, end + 4 + length).toString();
    this.#buffer = this.#buffer.subarray(end + 4 + length);
    const resolve = this.#waiting;
    this.#waiting = undefined;
    this.#failed = undefined;
    resolve({ status: Number(head.slice(9, 12)), head, body });
  }
}

/** A distinct IPv4 address for each n, for X-Forwarded-For behind TRUST_PROXY=1. */
export function ipFor(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
