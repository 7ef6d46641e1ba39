/**
 * The MCP server card and /mcp, exercised with the official MCP SDK client: it finds the endpoint
 * through the card alone, as a real client would.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { RATE_LIMITS } from '@sl-accounts/service/core';
import { MCP_PROTOCOL_VERSIONS } from '@sl-accounts/service/mcp';
import { MOUNTS, startTestServer } from '../support/server.ts';
import type { RunningServer } from '@sl-accounts/server';

describe.each(MOUNTS)('MCP on the $host host at "$basePath"', ({ host, basePath }) => {
  /** The server card fields this service publishes, per the v1 server-card schema and earlier drafts. */
  const SERVER_CARD = {
    type: 'object',
    required: ['$schema', 'name', 'version', 'description', 'remotes', 'serverInfo', 'transport', 'capabilities'],
    properties: {
      $schema: { const: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json' },
      name: { type: 'string', pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$' },
      version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' },
      description: { type: 'string', minLength: 1, maxLength: 100 },
      websiteUrl: { type: 'string', format: 'uri' },
      remotes: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['type', 'url'],
          properties: {
            type: { enum: ['streamable-http', 'sse'] },
            url: { type: 'string', format: 'uri' },
            supportedProtocolVersions: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      serverInfo: { type: 'object', required: ['name', 'version'] },
      transport: { type: 'object', required: ['type', 'endpoint'] },
      capabilities: { type: 'object' },
    },
  };

  const ajv = new Ajv2020({ allErrors: true });
  addFormats.default(ajv);
  const validCard = ajv.compile(SERVER_CARD);

  let server: RunningServer | undefined;
  /** The service's own base URL: the server's, then the base path it is mounted under. */
  const base = () => server!.url + basePath;
  const start = (env: Record<string, string> = {}): Promise<RunningServer> => startTestServer({ host, env: { BASE_PATH: basePath, ...env } });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function mcpUrlFromCard(base: string): Promise<URL> {
    const card = (await (await fetch(`${base}/.well-known/mcp/server-card.json`)).json()) as { remotes: { type: string; url: string }[] };
    const remote = card.remotes.find((r) => r.type === 'streamable-http');
    if (!remote) throw new Error('the card names no streamable-http remote');
    return new URL(remote.url);
  }

  async function connect(base: string, mode: 'auto' | 'legacy'): Promise<Client> {
    const client = new Client({ name: 'discovery-test', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(new StreamableHTTPClientTransport(await mcpUrlFromCard(base)));
    return client;
  }

  const CONTACT = { name: 'Ada', email: 'ada@example.com', message: 'Hello from an MCP client.' };
  const text = (result: { content?: unknown }) =>
    ((result.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');

  describe('MCP server card', () => {
    it('is served at both locations, valid, with CORS, pointing at /mcp', async () => {
      server = await start();
      // Under a base path the card is also at the origin's root (RFC 8615), pointing into it.
      const urls = [`${base()}/.well-known/mcp/server-card.json`, `${base()}/mcp/server-card`, ...(basePath ? [`${server!.url}/.well-known/mcp/server-card.json`] : [])];
      for (const url of urls) {
        const res = await fetch(url);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        // A page can read the validator it revalidates with only if the answer exposes it (not safelisted).
        expect(res.headers.get('etag')).toMatch(/^(W\/)?"/);
        expect(res.headers.get('access-control-expose-headers')?.split(/,\s*/)).toContain('ETag');
        const card = (await res.json()) as { remotes: { url: string }[]; transport: { endpoint: string } };
        expect(validCard(card), ajv.errorsText(validCard.errors)).toBe(true);
        expect(card.remotes[0]!.url).toBe(`${server!.url}${basePath}/mcp`);
        expect(card.transport.endpoint).toBe(`${basePath}/mcp`);
      }
    });

    it('answers a CORS preflight', async () => {
      server = await start();
      const res = await fetch(`${base()}/.well-known/mcp/server-card.json`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://inspector.example', 'Access-Control-Request-Method': 'GET' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toContain('GET');
    });

    it('is application/mcp-server-card+json when asked for, else application/json; each with its own tag', async () => {
      server = await start();
      const tags = new Set<string | null>();
      for (const [accept, type] of [
        ['application/mcp-server-card+json', 'application/mcp-server-card+json'],
        ['application/mcp-server-card+json, application/json;q=0.9', 'application/mcp-server-card+json'],
        ['application/json', 'application/json; charset=utf-8'],
        ['*/*', 'application/json; charset=utf-8'],
        ['text/html', 'application/json; charset=utf-8'],
      ] as const) {
        const res = await fetch(`${base()}/mcp/server-card`, { headers: { accept } });
        expect(res.status, accept).toBe(200);
        expect(res.headers.get('content-type'), accept).toBe(type);
        expect(res.headers.get('vary')).toBe('Accept, Host');
        expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
        expect(validCard(await res.json())).toBe(true);
        tags.add(res.headers.get('etag'));
      }
      expect(tags.size).toBe(2);
    });

    it('lists only the revisions /mcp serves over Streamable HTTP', async () => {
      server = await start();
      const card = (await (await fetch(`${base()}/mcp/server-card`)).json()) as { remotes: { supportedProtocolVersions: string[] }[] };
      expect(card.remotes[0]!.supportedProtocolVersions).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);
      expect(card.remotes[0]!.supportedProtocolVersions).toEqual(MCP_PROTOCOL_VERSIONS);
    });

    it('uses PUBLIC_URL for the remote and a reverse-DNS name', async () => {
      server = await start({ PUBLIC_URL: 'https://accounts.example.org/' });
      const card = (await (await fetch(`${base()}/mcp/server-card`)).json()) as { name: string; remotes: { url: string }[] };
      expect(card.name).toBe('org.example.accounts/sl-accounts');
      expect(card.remotes[0]!.url).toBe(`https://accounts.example.org${basePath}/mcp`);
    });
  });

  describe('MCP endpoint', () => {
    it('serves a 2026-07-28 client: tools, resources, and the contact tool up to the rate limit', async () => {
      server = await start();
      const client = await connect(base(), 'auto');
      try {
        expect(client.getProtocolEra()).toBe('modern');
        expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');

        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(['health', 'send-contact-message']);
        const contactTool = tools.find((t) => t.name === 'send-contact-message')!;
        expect(contactTool.inputSchema.required).toEqual(['name', 'email', 'message']);
        expect(contactTool.inputSchema.properties).toMatchObject({ message: { minLength: 10, maxLength: 5000 }, email: { 'x-trimmed': { format: 'email' } } });

        const health = await client.callTool({ name: 'health', arguments: {} });
        expect(health.isError).toBeFalsy();
        expect(health.structuredContent).toMatchObject({ ok: true, status: 'ok' });

        const limit = RATE_LIMITS.contact.limit;
        for (let i = 0; i < limit; i++) {
          const sent = await client.callTool({ name: 'send-contact-message', arguments: CONTACT });
          expect(sent.isError, text(sent)).toBeFalsy();
        }
        const limited = await client.callTool({ name: 'send-contact-message', arguments: CONTACT });
        expect(limited.isError).toBe(true);
        expect(text(limited)).toMatch(/too many requests/i);
        expect(text(limited)).toMatch(/Retry-After: \d+/);

        // The same per-IP window as POST /api/contact: the HTTP API is limited now too.
        const http = await fetch(`${base()}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CONTACT) });
        expect(http.status).toBe(429);
      } finally {
        await client.close();
      }
    });

    it('answers invalid arguments with a tool error, counted against the rate limit like the HTTP API', async () => {
      server = await start();
      const client = await connect(base(), 'auto');
      try {
        for (let i = 0; i < RATE_LIMITS.contact.limit; i++) {
          const bad = await client.callTool({ name: 'send-contact-message', arguments: { ...CONTACT, message: 'short' } });
          expect(bad.isError).toBe(true);
          expect(text(bad)).toContain('message');
        }
        expect(text(await client.callTool({ name: 'send-contact-message', arguments: CONTACT }))).toMatch(/too many requests/i);
      } finally {
        await client.close();
      }
    });

    it('reports every invalid argument of the contact tool, as text and as the body POST /api/contact answers', async () => {
      server = await start();
      const client = await connect(base(), 'auto');
      try {
        const bad = { email: 'not an address', message: 'short' };
        const result = await client.callTool({ name: 'send-contact-message', arguments: bad });
        expect(result.isError).toBe(true);
        expect(text(result)).toBe('Invalid request: name: is required; email: must be a valid e-mail address; message: must be at least 10 characters');
        const http = await fetch(`${base()}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(bad) });
        expect(http.status).toBe(400);
        expect(result.structuredContent).toEqual(await http.json());
        expect((result.structuredContent as { issues: unknown[] }).issues).toHaveLength(3);
      } finally {
        await client.close();
      }
    });

    it('offers the OpenAPI document and auth.md as resources', async () => {
      server = await start();
      const client = await connect(base(), 'auto');
      try {
        const { resources } = await client.listResources();
        expect(resources.map((r) => r.uri).sort()).toEqual([`${base()}/auth.md`, `${base()}/openapi.json`]);
        const openapi = await client.readResource({ uri: `${base()}/openapi.json` });
        const served = await (await fetch(`${base()}/openapi.json`)).json();
        expect(JSON.parse((openapi.contents[0] as { text: string }).text)).toEqual(served);
        const auth = await client.readResource({ uri: `${base()}/auth.md` });
        expect((auth.contents[0] as { text: string }).text).toBe(await (await fetch(`${base()}/auth.md`)).text());
      } finally {
        await client.close();
      }
    });

    it('serves a 2025-era client (initialize handshake), with the same tools and rate limit', async () => {
      server = await start();
      const client = await connect(base(), 'legacy');
      try {
        expect(client.getProtocolEra()).toBe('legacy');
        expect(client.getNegotiatedProtocolVersion()).toMatch(/^2025-/);
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(['health', 'send-contact-message']);
        for (let i = 0; i < RATE_LIMITS.contact.limit; i++) {
          expect((await client.callTool({ name: 'send-contact-message', arguments: CONTACT })).isError).toBeFalsy();
        }
        expect((await client.callTool({ name: 'send-contact-message', arguments: CONTACT })).isError).toBe(true);
      } finally {
        await client.close();
      }
    });

    describe('protocol revisions: the card, server/discover, initialize and the version errors agree', () => {
      const post = (body: object, headers: Record<string, string> = {}) =>
        fetch(`${base()}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: JSON.stringify(body),
        });
      /** The JSON-RPC message of an answer sent as JSON or as one server-sent event. */
      const message = async (res: Response) => {
        const raw = await res.text();
        const data = raw.split('\n').find((line) => line.startsWith('data: '));
        return JSON.parse(data ? data.slice('data: '.length) : raw) as { result?: Record<string, unknown>; error?: { code: number; message: string; data?: { supported?: string[] } } };
      };
      const initialize = (protocolVersion: string) =>
        post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      const modern = (revision: string, method: string) =>
        post(
          { jsonrpc: '2.0', id: 2, method, params: { _meta: { 'io.modelcontextprotocol/protocolVersion': revision, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } },
          { 'mcp-protocol-version': revision, 'mcp-method': method },
        );

      it('server/discover names the modern revisions of the card, and no list that changes', async () => {
        server = await start();
        const client = await connect(base(), 'auto');
        try {
          const discovered = client.getDiscoverResult()!;
          expect(discovered.supportedVersions).toEqual(MCP_PROTOCOL_VERSIONS.filter((v) => v >= '2026-07-28'));
          expect(discovered.capabilities).toEqual({ tools: { listChanged: false }, resources: { listChanged: false } });
        } finally {
          await client.close();
        }
        const direct = await message(await modern('2026-07-28', 'server/discover'));
        expect(direct.result).toMatchObject({ supportedVersions: ['2026-07-28'] });
      });

      it('initialize accepts each 2025 revision of the card and offers the newest one for any other, with no list that changes', async () => {
        server = await start();
        for (const version of MCP_PROTOCOL_VERSIONS.filter((v) => v < '2026-07-28')) {
          expect((await message(await initialize(version))).result, version).toMatchObject({ protocolVersion: version });
        }
        for (const version of ['2024-11-05', '2024-10-07', '2025-01-01']) {
          const { result } = await message(await initialize(version));
          expect(result, version).toMatchObject({ protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: false }, resources: { listChanged: false } } });
          expect(MCP_PROTOCOL_VERSIONS).toContain(result!.protocolVersion);
        }
      });

      it('a request under a revision it does not serve is refused, naming what the card names', async () => {
        server = await start();
        for (const version of ['2024-11-05', '2024-10-07']) {
          const res = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, { 'mcp-protocol-version': version });
          expect(res.status, version).toBe(400);
          const { error } = await message(res);
          expect(error!.message).toContain(`Unsupported protocol version: ${version} (supported versions: ${MCP_PROTOCOL_VERSIONS.join(', ')})`);
        }
        const res = await modern('2099-01-01', 'tools/list');
        expect(res.status).toBe(400);
        const { error } = await message(res);
        // The modern path names the modern revisions, as server/discover does.
        expect(error!.data!.supported).toEqual(MCP_PROTOCOL_VERSIONS.filter((v) => v >= '2026-07-28'));
      });
    });

    describe('CORS for pages on allowed origins', () => {
      const initializeBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } } });

      it('answers the preflight of an allowed origin with the MCP headers, and refuses a foreign one', async () => {
        server = await start({ PUBLIC_URL: 'https://accounts.example.org' });
        for (const origin of ['http://localhost:5173', 'https://accounts.example.org']) {
          const res = await fetch(`${base()}/mcp`, {
            method: 'OPTIONS',
            headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-protocol-version, mcp-method' },
          });
          expect(res.status, origin).toBe(204);
          expect(res.headers.get('access-control-allow-origin')).toBe(origin);
          expect(res.headers.get('access-control-allow-methods')).toContain('POST');
          const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/);
          expect(allowed).toEqual(expect.arrayContaining(['content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-session-id', 'last-event-id']));
          expect(res.headers.get('vary')).toContain('Origin');
        }
        const foreign = await fetch(`${base()}/mcp`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
        expect(foreign.status).toBe(403);
        expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
        const plain = await fetch(`${base()}/mcp`, { method: 'OPTIONS' });
        expect(plain.status).toBe(204);
        expect(plain.headers.get('allow')).toBe('POST, OPTIONS');
      });

      it('lets an allowed page read the answer and its MCP headers; an answer to no page carries no CORS grant', async () => {
        server = await start();
        const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        const fromPage = await fetch(`${base()}/mcp`, { method: 'POST', headers: { ...headers, origin: 'http://127.0.0.1:5173' }, body: initializeBody });
        expect(fromPage.status).toBe(200);
        expect(fromPage.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');
        expect(fromPage.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
        expect(fromPage.headers.get('vary')).toContain('Origin');
        await fromPage.body?.cancel();
        const direct = await fetch(`${base()}/mcp`, { method: 'POST', headers, body: initializeBody });
        expect(direct.status).toBe(200);
        expect(direct.headers.get('access-control-allow-origin')).toBeNull();
        expect(direct.headers.get('vary')).toContain('Origin');
        await direct.body?.cancel();
      });
    });

    describe('Origin validation', () => {
      const initialize = (origin?: string) =>
        fetch(`${base()}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(origin ? { origin } : {}),
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
          }),
        });

      it('answers whatever the Host header and the form of the request target', { tags: ['socket'] }, async () => {
        server = await start();
        const { port } = new URL(server!.url);
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
        for (const [target, hostHeader] of [[`${basePath}/mcp`, 'a b'], [`${basePath}/mcp`, 'x@y'], [`${base()}/mcp`, new URL(base()).host], [`${basePath}/mcp#frag`, `127.0.0.1:${port}`]] as const) {
          const status = await new Promise<number>((resolve, reject) => {
            const req = httpRequest(
              { host: '127.0.0.1', port, method: 'POST', path: target, headers: { host: hostHeader, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
              (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)),
            );
            req.on('error', reject).end(body);
          });
          // @hono/node-server refuses a Host that is not a host (400) before the app runs: the host's own rule.
          const refusedByHost = host === 'hono' && !/^(127\.0\.0\.1|localhost):/.test(hostHeader);
          expect(status, `${target} with Host: ${hostHeader}`).toBe(refusedByHost ? 400 : 200);
        }
      });

      it('rejects a foreign Origin with 403', async () => {
        server = await start();
        const res = await initialize('https://evil.example');
        expect(res.status).toBe(403);
        expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
      });

      it('accepts no Origin, a localhost Origin and the PUBLIC_URL origin', async () => {
        server = await start({ PUBLIC_URL: 'https://accounts.example.org' });
        for (const origin of [undefined, server!.url, 'http://localhost:5173', 'https://accounts.example.org']) {
          const res = await initialize(origin);
          expect(res.status, String(origin)).toBe(200);
          await res.body?.cancel();
        }
      });
    });
  });
});
