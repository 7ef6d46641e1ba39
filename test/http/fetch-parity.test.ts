/**
 * The two ways into the service answer alike: the black-box suite (test/blackbox/spec-run.ts) runs
 * against a recording proxy that sends every request, as received, to two servers configured alike,
 * one on the node:http path (`accounts(service)` of `@sl-accounts/service/http-node`) and one on
 * `service.fetch` (served on Node by `@hono/node-server`'s `getRequestListener`), and compares their
 * answers request by request: the status, every header but the naturally varying ones named below,
 * and the body byte for byte. The client gets the node path's answer, so the suite's own checks hold
 * it to the contract, and the comparison holds the fetch path to it.
 *
 * Both servers agree on what would otherwise differ by chance: they share a clock that stands still
 * during each request (so `RateLimit` reset times and cookie expiries agree), and each has a token
 * generator that gives the same sequence (so session tokens, device proofs and their key agree);
 * the proxy waits for each server's background work (`accounts.settled()`) before the next request.
 */
// @module-tag socket
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock, TokenGenerator } from '@sl-accounts/service/core';
import { accounts } from '@sl-accounts/service/http-node';
import { loadConfig, startServer, type RunningServer } from '@sl-accounts/server';
import { TEST_ITERATIONS } from '../support/server.ts';

const SCRIPT = fileURLToPath(new URL('../blackbox/spec-run.ts', import.meta.url));

/**
 * Headers that differ between any two answers, not between the paths: `Date` (the second it was
 * written) and `X-Request-Id` (a counter the two services in this process share). `Connection` and
 * `Keep-Alive` are the connection's, which each server manages itself.
 */
const VARYING = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

interface Answer {
  readonly status: number;
  /** Every header line but the varying ones, as `name: value`, sorted by name (Set-Cookie lines in their order). */
  readonly headers: readonly string[];
  readonly body: Buffer;
}

interface Exchange {
  readonly request: string;
  readonly node: Answer;
  readonly fetch: Answer;
}

/** A clock that stands still while a request is served: both servers read the same instant. */
function standingClock(): Clock & { tick(): void } {
  let now = Date.now();
  return { now: () => new Date(now), tick: () => void (now = Date.now()) };
}

/** The same tokens, in the same order, for each server given one. */
function sequentialTokens(): TokenGenerator {
  let n = 0;
  return { generate: () => createHash('sha256').update(`fetch-parity-${++n}`).digest('base64url') };
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** Sends the request as received (its raw header lines, its body's bytes) to `port`. */
function forward(port: number, req: IncomingMessage, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const out = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.rawHeaders, setHost: false, agent: false }, (res) => {
      readAll(res).then((bytes) => {
        const lines: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!.toLowerCase();
          if (!VARYING.has(name)) lines.push(`${name}: ${res.rawHeaders[i + 1]}`);
        }
        // Stable: Set-Cookie lines keep their order.
        lines.sort((a, b) => (a.slice(0, a.indexOf(':')) < b.slice(0, b.indexOf(':')) ? -1 : a.slice(0, a.indexOf(':')) > b.slice(0, b.indexOf(':')) ? 1 : 0));
        resolve({ status: res.statusCode!, headers: lines, body: bytes });
      }, reject);
    });
    out.on('error', reject);
    out.end(body);
  });
}

interface Pair {
  readonly node: RunningServer;
  readonly fetch: RunningServer;
  readonly clock: ReturnType<typeof standingClock>;
}

/** The recording proxy: one request at a time, to the node path, then to the fetch path; the client gets the node path's answer. */
function recordingProxy(pair: Pair, exchanges: Exchange[]): Server {
  const port = (server: RunningServer) => (server.server.address() as AddressInfo).port;
  let queue: Promise<unknown> = Promise.resolve();
  return createServer((req, res) => {
    queue = queue.then(async () => {
      try {
        const body = await readAll(req);
        pair.clock.tick();
        const node = await forward(port(pair.node), req, body);
        await pair.node.accounts.settled();
        const fetch = await forward(port(pair.fetch), req, body);
        await pair.fetch.accounts.settled();
        exchanges.push({ request: `${req.method} ${req.url}`, node, fetch });
        const headers: string[] = [];
        for (const line of node.headers) headers.push(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2));
        res.writeHead(node.status, headers).end(node.body);
      } catch (error) {
        res.writeHead(502).end(String(error));
      }
    });
  });
}

async function startPair(env: Record<string, string>): Promise<Pair> {
  const clock = standingClock();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', STORE: 'memory', PBKDF2_ITERATIONS: String(TEST_ITERATIONS), LOG_LEVEL: 'silent', ...env });
  const overrides = () => ({ logger: pino({ level: 'silent' }), clock, tokens: sequentialTokens() });
  const node = await startServer(config, (service) => accounts(service), overrides());
  const fetch = await startServer(
    config,
    (service) => getRequestListener((request, env) => service.fetch(request, { clientAddress: (env as { incoming: IncomingMessage }).incoming.socket.remoteAddress }), { overrideGlobalObjects: false }),
    overrides(),
  );
  return { node, fetch, clock };
}

function runScript(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

/**
 * A streamed answer's framing is the host server's: node writes `/mcp`'s event streams chunked as
 * they come, and `@hono/node-server` reads a short stream ahead and sends it with a length. For those
 * answers (chunked on the node path) `Transfer-Encoding` and `Content-Length` are left out; their
 * bytes are still compared.
 */
function unframed(answer: Answer, streamed: boolean): Answer {
  return streamed ? { ...answer, headers: answer.headers.filter((h) => !h.startsWith('transfer-encoding:') && !h.startsWith('content-length:')) } : answer;
}

/** What differs between the two answers to one request, described; empty when they agree. */
function differences(exchange: Exchange): string[] {
  const streamed = exchange.node.headers.includes('transfer-encoding: chunked');
  const { request } = exchange;
  const node = unframed(exchange.node, streamed);
  const fetch = unframed(exchange.fetch, streamed);
  const found: string[] = [];
  if (node.status !== fetch.status) found.push(`${request}: status ${node.status} (node) vs ${fetch.status} (fetch)`);
  const missing = node.headers.filter((h, i) => fetch.headers[i] !== h);
  if (missing.length > 0 || node.headers.length !== fetch.headers.length) found.push(`${request}: headers\n  node:  ${node.headers.join('\n         ')}\n  fetch: ${fetch.headers.join('\n         ')}`);
  if (!node.body.equals(fetch.body)) found.push(`${request}: body (${node.body.length} bytes, node) vs (${fetch.body.length} bytes, fetch)\n  node:  ${node.body.toString('utf8', 0, 300)}\n  fetch: ${fetch.body.toString('utf8', 0, 300)}`);
  return found;
}

describe.each<{ name: string; env: Record<string, string>; base: string; args: string[] }>([
  { name: 'at the root, trusting one proxy', env: { TRUST_PROXY: '1' }, base: '', args: ['--trust-proxy'] },
  { name: 'under BASE_PATH=/accounts, trusting no proxy', env: { BASE_PATH: '/accounts' }, base: '/accounts', args: [] },
])('the node:http path and service.fetch, $name', ({ env, base, args }) => {
  let pair: Pair;
  let proxy: Server;
  const exchanges: Exchange[] = [];

  beforeAll(async () => {
    pair = await startPair(env);
    proxy = recordingProxy(pair, exchanges);
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    proxy?.close();
    await Promise.all([pair?.node.close(), pair?.fetch.close()]);
  });

  it('pass the black-box suite with the same status, headers and body for every request', async () => {
    const { port } = proxy.address() as AddressInfo;
    const run = await runScript('--base', `http://127.0.0.1:${port}${base}`, ...args);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => !l.startsWith('ok ')).slice(0, -1), run.stderr).toEqual([]);
    expect(lines.at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    expect(run.code).toBe(0);

    // Every kind of answer went through both: operations, documents, /mcp, errors, HEAD.
    expect(exchanges.length).toBeGreaterThan(60);
    const seen = (pattern: RegExp) => exchanges.some((e) => pattern.test(e.request));
    for (const pattern of [/^POST \S*\/api\/signup/, /^GET \S*\/api\/me/, /^POST \S*\/mcp/, /^HEAD /, /^GET \S*\/openapi\.json/]) expect(seen(pattern), String(pattern)).toBe(true);
    expect(exchanges.some((e) => e.node.headers.filter((h) => h.startsWith('set-cookie:')).length === 2)).toBe(true);
    // The one thing left to the hosts: how the event streams of /mcp are framed.
    expect(exchanges.filter((e) => e.node.headers.includes('transfer-encoding: chunked')).every((e) => /\/mcp$/.test(e.request))).toBe(true);
    expect(exchanges.flatMap(differences)).toEqual([]);
  });
});
