/**
 * What a start of `pnpm start` (a real server process) spends: the MCP SDK is loaded on the first
 * request to /mcp and prom-client only with METRICS_PORT, not before (a module hook,
 * test/support/module-loads.ts, reports each load), and the compiled modules go to Node's compile
 * cache as soon as the server listens.
 */
// @module-tag process
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from '../support/server-process.ts';
import { poll } from '../support/poll.ts';

const HOOK = fileURLToPath(new URL('../support/module-loads.ts', import.meta.url));

const initialize = (url: string) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } }),
  });

const count = (output: string, line: string) => output.split('\n').filter((l) => l === line).length;

describe('the MCP SDK, loaded lazily', () => {
  let server: ServerProcess | undefined;
  afterEach(() => server?.stop());

  it('is not loaded to answer the API and the documents, and is loaded once by the first /mcp requests', async () => {
    server = await spawnServer({ STORE: 'memory', NODE_OPTIONS: `--import=${HOOK}` });
    for (const path of ['/api/health', '/openapi.json', '/docs/api', '/auth.md', '/.well-known/mcp/server-card.json', '/mcp/server-card']) {
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
    }
    expect(count(server.output(), 'module-loads: loaded @modelcontextprotocol/server')).toBe(0);

    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => initialize(server!.url)));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
    for (const res of answers) expect(await res.text()).toContain('"protocolVersion":"2025-06-18"');
    expect(count(server.output(), 'module-loads: loaded @modelcontextprotocol/server')).toBe(1);
  });

  it('that fails to load answers 503 on /mcp only, keeps the process up, and is loaded again by a later request', async () => {
    server = await spawnServer({ STORE: 'memory', NODE_OPTIONS: `--import=${HOOK}`, REFUSE_SDK_LOADS: '1' });
    const refused = await initialize(server.url);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'The MCP endpoint is temporarily unavailable' }, id: null });
    // Log lines go out at the end of the event-loop turn, so the line may follow the answer.
    const logged = await poll(async () => server!.output(), (output) => output.includes('could not load the MCP SDK'), 5_000);
    expect(logged).toContain('could not load the MCP SDK');
    expect(count(server.output(), 'module-loads: refused @modelcontextprotocol/server')).toBe(1);

    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/mcp/server-card`)).status).toBe(200);
    expect(server.alive()).toBe(true);

    const retried = await initialize(server.url);
    expect(retried.status).toBe(200);
    expect(count(server.output(), 'module-loads: loaded @modelcontextprotocol/server')).toBe(1);
  });
});

describe('prom-client', () => {
  let server: ServerProcess | undefined;
  afterEach(() => server?.stop());

  it('is loaded only when METRICS_PORT asks for metrics', async () => {
    server = await spawnServer({ STORE: 'memory', NODE_OPTIONS: `--import=${HOOK}` });
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    expect(count(server.output(), 'module-loads: loaded prom-client')).toBe(0);
    await server.stop();

    server = await spawnServer({ STORE: 'memory', METRICS_PORT: '0', NODE_OPTIONS: `--import=${HOOK}` });
    expect(count(server.output(), 'module-loads: loaded prom-client')).toBe(1);
  });
});

describe('the compile cache', () => {
  it('holds the compiled modules once the server listens, before it ever exits', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'compile-cache-'));
    const server = await spawnServer({ STORE: 'memory', NODE_COMPILE_CACHE: dir });
    try {
      // Node itself writes the cache only at exit; the start writes it as soon as it listens.
      const files = await poll(async () => (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()), (found) => found.length > 100, 5_000);
      expect(files.length).toBeGreaterThan(100);
      expect(server.alive()).toBe(true);
    } finally {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
