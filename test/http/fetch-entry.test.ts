/**
 * `service.fetch`: the service as a web-standard handler, in-process (no socket). It answers every
 * operation, document and `/mcp` by the node path's rules: Set-Cookie one line per cookie, HEAD
 * without its body, `secure` from the URL's scheme, the limits per `clientAddress` (the socket
 * peer's part, `trustProxy` as on node), the body bounds read from the stream, a body deadline,
 * the mount prefix. Its module graph loads nothing of node:http, so it runs where `Request` does.
 * (test/http/fetch-parity.test.ts compares it with the node:http path byte for byte.)
 */
import { describe, expect, it } from 'vitest';
import { capturingLogger } from '../support/logger.ts';
import { moduleGraph } from '../support/module-graph.ts';
import { json, useFetchService } from '../support/fetch-service.ts';

const start = useFetchService();

describe('service.fetch', () => {
  it('signs up, logs in (two Set-Cookie lines), and reads /api/me with the cookie', async () => {
    const { fetch } = await start();
    const signup = await fetch(json('POST', 'http://localhost/api/signup', { name: 'Ada', email: 'ada@example.com', password: 'long enough' }), { clientAddress: '192.0.2.7' });
    expect(signup.status).toBe(201);
    expect(signup.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(signup.headers.get('cache-control')).toBe('no-store');
    expect(signup.headers.get('ratelimit')).toMatch(/"signup";r=9;/);
    const cookies = signup.headers.getSetCookie();
    expect(cookies).toHaveLength(2);
    expect(cookies[0]).toMatch(/^sl_session=[^;]+;.* Path=\/;/);
    expect(cookies[1]).toMatch(/^sl_device=/);
    const text = await signup.text();
    expect(signup.headers.get('content-length')).toBe(String(new TextEncoder().encode(text).byteLength));

    const session = /^sl_session=([^;]+)/.exec(cookies[0]!)![1]!;
    const me = await fetch(new Request('http://localhost/api/me', { headers: { cookie: `sl_session=${session}` } }), { clientAddress: '192.0.2.7' });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ ok: true, user: { id: expect.any(Number), name: 'Ada', email: 'ada@example.com', emailVerified: false } });
  });

  it('answers HEAD with the headers of GET, Content-Length included, and no body', async () => {
    const { fetch } = await start();
    const get = await fetch(new Request('http://localhost/openapi.json'));
    const head = await fetch(new Request('http://localhost/openapi.json', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(head.body).toBeNull();
    expect((await get.text()).length).toBeGreaterThan(1000);
  });

  it('counts the limits per clientAddress, and with trustProxy by the hop the proxy appended', async () => {
    const { fetch } = await start();
    const login = (clientAddress: string | undefined, headers: Record<string, string> = {}) =>
      fetch(json('POST', 'http://localhost/api/login', { email: 'nobody@example.com', password: 'wrong one' }, headers), { clientAddress });
    expect((await login('192.0.2.1')).headers.get('ratelimit')).toMatch(/"login";r=19;/);
    expect((await login('192.0.2.1')).headers.get('ratelimit')).toMatch(/"login";r=18;/);
    expect((await login('192.0.2.2')).headers.get('ratelimit')).toMatch(/"login";r=19;/);
    // Without trustProxy, X-Forwarded-For is the client's own claim and counts for nothing.
    expect((await login('192.0.2.1', { 'x-forwarded-for': '198.51.100.9' })).headers.get('ratelimit')).toMatch(/"login";r=17;/);

    const proxied = await start({ trustProxy: 1 });
    const behind = (forwarded: string) =>
      proxied.fetch(json('POST', 'http://localhost/api/login', { email: 'nobody@example.com', password: 'wrong one' }, { 'x-forwarded-for': forwarded }), { clientAddress: '10.0.0.1' });
    expect((await behind('203.0.113.5')).headers.get('ratelimit')).toMatch(/"login";r=19;/);
    expect((await behind('198.51.100.1, 203.0.113.5')).headers.get('ratelimit')).toMatch(/"login";r=18;/);
    expect((await behind('203.0.113.6')).headers.get('ratelimit')).toMatch(/"login";r=19;/);
  });

  it('warns once, naming clientAddress and the shared budget, when a host passes none (issue 39 row 12)', async () => {
    const { logger, lines } = capturingLogger('warn');
    const { fetch } = await start({ logger });
    const warned = () => lines.filter((line) => line.includes('clientAddress'));
    await fetch(new Request('http://localhost/api/health'), { clientAddress: '192.0.2.1' });
    expect(warned()).toEqual([]);
    for (const options of [undefined, {}, { clientAddress: undefined }]) expect((await fetch(new Request('http://localhost/api/health'), options)).status).toBe(200);
    expect(warned()).toHaveLength(1);
    expect(JSON.parse(warned()[0]!)).toMatchObject({ level: 40, msg: expect.stringMatching(/^fetch was called without clientAddress: .*one rate-limit budget/) });
  });

  it('takes secure from the URL’s scheme: documents name https origins', async () => {
    const { fetch } = await start();
    const http = (await (await fetch(new Request('http://example.org/.well-known/api-catalog'))).text()) as string;
    const https = (await (await fetch(new Request('https://example.org/.well-known/api-catalog'))).text()) as string;
    expect(http).toContain('http://example.org/');
    expect(https).toContain('https://example.org/');
    expect(https).not.toContain('http://example.org/');
  });

  it('refuses a state change from another site’s page', async () => {
    const { fetch } = await start();
    const answer = await fetch(json('POST', 'http://localhost/api/login', { email: 'a@example.com', password: 'long enough' }, { origin: 'https://evil.example' }), { clientAddress: '192.0.2.1' });
    expect(answer.status).toBe(403);
    expect(await answer.json()).toMatchObject({ ok: false, code: 'cross_site' });
  });

  it('reads the body from the stream: over 64 KiB without a Content-Length is 413, as is a gzip bomb', async () => {
    const { fetch } = await start();
    const chunk = new TextEncoder().encode(`{"name":"${'x'.repeat(16 * 1024)}`);
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent++;
        controller.enqueue(chunk);
      },
    });
    const answer = await fetch(new Request('http://localhost/api/signup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: endless, duplex: 'half' } as RequestInit), {
      clientAddress: '192.0.2.1',
    });
    expect(answer.status).toBe(413);
    expect(await answer.json()).toMatchObject({ ok: false, code: 'body_too_large' });
    // It stopped reading at the limit: 5 chunks of 16 KiB and a bit, plus what the stream queued ahead.
    expect(sent).toBeLessThan(10);

    const zeros = new Uint8Array(1024 * 1024);
    const bomb = new Uint8Array(await new Response(new Blob([zeros]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer());
    const gz = await fetch(new Request('http://localhost/api/signup', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: bomb }), {
      clientAddress: '192.0.2.1',
    });
    expect(gz.status).toBe(413);
  });

  it('answers 408 request_timeout when a body stops arriving before its deadline', async () => {
    const { fetch } = await start({ bodyTimeoutMs: 50 });
    let cancelled = false;
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const answer = await fetch(new Request('http://localhost/api/signup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: stalled, duplex: 'half' } as RequestInit), {
      clientAddress: '192.0.2.1',
    });
    expect(answer.status).toBe(408);
    expect(await answer.json()).toEqual({ ok: false, error: 'The request body did not arrive in time', code: 'request_timeout' });
    expect(cancelled).toBe(true);
  });

  it('answers under the host’s mountPath, its links pointing into it, and 404s outside it', async () => {
    const { fetch } = await start();
    const catalog = await fetch(new Request('http://localhost/accounts/openapi.json'), { mountPath: '/accounts' });
    expect(catalog.status).toBe(200);
    expect(await catalog.text()).toContain('http://localhost/accounts');
    const outside = await fetch(new Request('http://localhost/openapi.json'), { mountPath: '/accounts' });
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ code: 'unknown_path' });
  });

  it('serves /mcp: an initialize is answered', async () => {
    const { fetch } = await start();
    const rpc = (body: unknown) =>
      fetch(json('POST', 'http://localhost/mcp', body, { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }), { clientAddress: '192.0.2.1' });
    const init = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect(init.status).toBe(200);
    const text = await init.text();
    expect(text).toContain('"serverInfo"');
  });

  it('is a function of its own: passed without its service, it still answers', async () => {
    const { fetch } = await start();
    const handler: (request: Request) => Promise<Response> = fetch;
    expect((await handler(new Request('http://localhost/api/health'))).status).toBe(200);
  });
});

describe('the fetch entry’s module graph', () => {
  /** What Bun, Deno and workerd's nodejs_compat all implement: the core hashes and compresses with them. */
  // node:async_hooks for its AsyncLocalStorage only (the request's mount for mailed links), which Bun, Deno, Next.js's edge runtime and Workers' nodejs_compat implement as they do node:crypto.
  const PORTABLE = new Set(['node:async_hooks', 'node:crypto', 'node:net', 'node:util', 'node:zlib']);

  it('http’s fetch.ts imports no node:* module and uses no Node global', async () => {
    const { readFile } = await import('node:fs/promises');
    const source = await readFile(new URL('../../packages/http/src/fetch.ts', import.meta.url), 'utf8');
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    expect(code).not.toMatch(/from ['"]node:|\bBuffer\b|\bprocess\./);
    const graph = moduleGraph('packages/http/src/fetch.ts');
    // `@sl-accounts/service/core` is reached through the service's one-line entry for that subpath.
    expect(graph.files.filter((f) => f.startsWith('packages/') && !f.startsWith('packages/http/') && !f.startsWith('packages/core/') && f !== 'packages/service/src/entries/core.ts')).toEqual([]);
  });

  it('@sl-accounts/service loads no node:http, streams, files or processes: only modules every runtime implements', () => {
    const graph = moduleGraph('@sl-accounts/service');
    expect([...graph.builtins.keys()].filter((name) => !PORTABLE.has(name))).toEqual([]);
    expect(graph.files.some((f) => f.startsWith('packages/http-node/'))).toBe(false);
    expect(graph.files).toContain('packages/http/src/fetch.ts');
  });
});
