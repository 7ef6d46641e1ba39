/**
 * Documents written from the request's host: the host is checked, forwarded headers only when
 * trusted and valid, what reaches Markdown is inert, and shared caches are told what varies (issue 9).
 */
// @module-tag socket
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { COMPRESS_FROM_BYTES, authMarkdown, openApiDocument } from '@sl-accounts/service/discovery';
import type { RunningServer } from '@sl-accounts/server';
import { capturingLogger } from '../support/logger.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

/** A GET with any Host header (fetch would not send these). */
function get(url: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const { port } = new URL(url);
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject).end();
  });
}

const BASE_DOCUMENTS = ['/', '/openapi.json', '/.well-known/api-catalog', '/auth.md', '/.well-known/agent-skills/index.json', '/.well-known/mcp/server-card.json', '/mcp/server-card'];
/** Documents that also vary with `Accept` (content negotiation, issue 12): their own Vary comes first. */
const NEGOTIATED = new Set(['/', '/.well-known/mcp/server-card.json', '/mcp/server-card']);
/** A document of 1 KiB or more is also sent compressed when asked (issue 32): it varies with `Accept-Encoding` too. */
const vary = (path: string, origin: string | undefined, body: string) =>
  [NEGOTIATED.has(path) ? 'Accept' : undefined, Buffer.byteLength(body) >= COMPRESS_FROM_BYTES ? 'Accept-Encoding' : undefined, origin].filter(Boolean).join(', ') || undefined;

describe.each(HOST_KINDS)('documents and the request host on the %s host', (host) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.each(['a b', 'a.example](https://phish.example) [x', '[::1', 'evil.example:99999', 'x@y', '1.2.3', 'a.example/path', '"quoted"'])(
    'a Host of %j is 400 ErrorResponse for every document written from it, never 500 and never copied',
    async (badHost) => {
      server = await startTestServer({ host });
      for (const path of BASE_DOCUMENTS) {
        const res = await get(server.url, path, { host: badHost });
        expect(res.status, path).toBe(400);
        expect(JSON.parse(res.body)).toEqual({ ok: false, error: 'The Host header is missing or not a valid host', code: 'invalid_host' });
        expect(res.body).not.toContain('phish');
      }
      // Documents that do not depend on the host are served whatever it is.
      expect((await get(server.url, '/.well-known/agent-skills/account-api/SKILL.md', { host: badHost })).status).toBe(200);
    },
  );

  it('a valid Host is used, in lower case, and each such document says it varies with Host', async () => {
    server = await startTestServer({ host });
    for (const path of BASE_DOCUMENTS) {
      const res = await get(server.url, path, { host: 'Accounts.Example.COM:8443' });
      expect(res.status, path).toBe(200);
      expect(res.body).toContain('accounts.example.com:8443');
      expect(res.headers.vary, path).toBe(vary(path, 'Host', res.body));
    }
    expect((await get(server.url, '/auth.md', { host: '[2001:DB8::1]:3000' })).body).toContain('http://[2001:db8::1]:3000/openapi.json');
    // A skill is not written from the Host: it varies only with the coding asked for.
    expect((await get(server.url, '/.well-known/agent-skills/account-api/SKILL.md', { host: 'a.example' })).headers.vary).toBe('Accept-Encoding');
  });

  it('with TRUST_PROXY, valid forwarded headers count, invalid ones fall back to the connection’s view with a warning; Vary names all three', async () => {
    const { logger, lines } = capturingLogger('warn');
    server = await startTestServer({ host, logger, env: { TRUST_PROXY: '1' } });
    const hostHeader = new URL(server.url).host;
    const card = async (headers: Record<string, string>) => {
      const res = await get(server!.url, '/.well-known/mcp/server-card.json', { host: hostHeader, ...headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.headers.vary).toBe(vary('/mcp/server-card', 'Host, X-Forwarded-Host, X-Forwarded-Proto', res.body));
      return (JSON.parse(res.body) as { remotes: { url: string }[] }).remotes[0]!.url;
    };
    expect(await card({ 'x-forwarded-host': 'accounts.example.org', 'x-forwarded-proto': 'HTTPS' })).toBe('https://accounts.example.org/mcp');
    expect(await card({ 'x-forwarded-host': '[::1' })).toBe(`${server.url}/mcp`);
    expect(await card({ 'x-forwarded-host': 'a b' })).toBe(`${server.url}/mcp`);
    expect(await card({ 'x-forwarded-proto': 'ftp' })).toBe(`${server.url}/mcp`);
    expect(await card({ 'x-forwarded-proto': 'javascript:alert(1)//' })).toBe(`${server.url}/mcp`);
    const warnings = lines.map((l) => JSON.parse(l) as { msg: string; ignored?: string[] }).filter((l) => l.ignored);
    expect(warnings.map((w) => w.ignored)).toEqual([['X-Forwarded-Host'], ['X-Forwarded-Host'], ['X-Forwarded-Proto'], ['X-Forwarded-Proto']]);
  });

  it('with PUBLIC_URL, documents ignore Host entirely and send no Vary', async () => {
    server = await startTestServer({ host, env: { PUBLIC_URL: 'https://accounts.example.org' } });
    for (const path of BASE_DOCUMENTS) {
      const res = await get(server.url, path, { host: 'a b' });
      expect(res.status, path).toBe(200);
      expect(res.body).toContain('https://accounts.example.org');
      expect(res.headers.vary, path).toBe(vary(path, undefined, res.body));
    }
  });
});

describe('Markdown written from a URL', () => {
  const hostile = 'http://a.example](https://phish.example) `rm -rf` "$(id)" <img src=x> [x';

  it('auth.md turns every character of the base that Markdown, HTML or a shell would read into percent-encoding', () => {
    const text = authMarkdown(hostile, 'sl-accounts');
    expect(text).not.toContain('](https://phish.example)');
    expect(text).not.toContain('<img');
    expect(text).not.toContain('$(id)');
    expect(text).not.toContain('`rm');
    expect(text).toContain('http://a.example]%28https://phish.example%29%20%60rm%20-rf%60%20%22%24%28id%29%22%20%3Cimg%20src=x%3E%20[x/openapi.json');
    // The one link in the text has the URL as its text (escaped) and its target in angle brackets.
    expect(text).toContain('[http://a.example\\]%28https://phish.example%29%20%60rm%20-rf%60%20%22%24%28id%29%22%20%3Cimg%20src=x%3E%20\\[x/openapi.json](<http://a.example]');
  });

  it('the OpenAPI description links auth.md the same way', () => {
    const { description } = openApiDocument(hostile, 'sl-accounts').info;
    expect(description).not.toContain('](https://phish.example)');
    expect(description).toContain('%28https://phish.example%29');
  });
});
