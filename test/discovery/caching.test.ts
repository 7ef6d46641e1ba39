/**
 * Caching of the discovery documents: each answer carries Cache-Control and an ETag, a client whose
 * copy is current gets 304 with no body, and a document written from the request's Host has a tag
 * of its own per host (beside the Vary headers of issue 9).
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '@sl-accounts/service/http/testing';
import type { RunningServer } from '@sl-accounts/server';
import { createService, type Service } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

const DOCUMENTS = [
  '/',
  '/openapi.json',
  '/.well-known/api-catalog',
  '/auth.md',
  '/.well-known/agent-skills/index.json',
  '/.well-known/agent-skills/account-api/SKILL.md',
  '/.well-known/agent-skills/send-contact-message/SKILL.md',
  '/.well-known/mcp/server-card.json',
  '/mcp/server-card',
];

describe.each(HOST_KINDS)('document caching on the %s host', (host) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ host });
  });
  afterAll(() => server.close());

  it.each(DOCUMENTS)('%s carries Cache-Control and an ETag, and answers 304 when the copy is current', async (path) => {
    // Each content coding is a representation of its own; this case is about the unencoded one.
    const res = await fetch(`${server.url}${path}`, { headers: { 'accept-encoding': 'identity' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    await res.body?.cancel();
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await fetch(`${server.url}${path}`, { headers: { 'if-none-match': ifNoneMatch, 'accept-encoding': 'identity' } });
      expect(again.status, ifNoneMatch).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('cache-control')).toBe('public, max-age=3600');
      // Headers that describe a body are not sent with none, by either host.
      expect(again.headers.get('content-type')).toBeNull();
      expect(await again.text()).toBe('');
    }
    const changed = await fetch(`${server.url}${path}`, { headers: { 'if-none-match': '"something else"', 'accept-encoding': 'identity' } });
    expect(changed.status).toBe(200);
    await changed.body?.cancel();
  });

  it('gives a document written from the Host another tag per host, and the API no cache at all', async () => {
    const tag = async (url: string) => (await fetch(`${url}/openapi.json`, { headers: { 'accept-encoding': 'identity' } })).headers.get('etag');
    // The same server by its other name (its own URL is http://localhost:<port> since ADR 48).
    expect(await tag(server.url)).not.toBe(await tag(server.url.replace('localhost', '127.0.0.1')));
    expect(server.url).toContain('localhost');
    const api = await fetch(`${server.url}/api/health`);
    expect(api.headers.get('cache-control')).toBe('no-store');
    expect(api.headers.get('etag')).toBeNull();
  });
});

describe('documents compressed where asked (issue 32)', () => {
  let service: Service;
  beforeAll(async () => {
    service = await createService({ store: createMemoryStore(), mailer: { send: async () => {} } });
  });
  afterAll(() => service?.close());
  const decoders = { br: brotliDecompressSync, gzip: gunzipSync };

  it.each(['/openapi.json', '/auth.md', '/.well-known/agent-skills/account-api/SKILL.md'])('%s: br or gzip by Accept-Encoding, each with its own ETag, Vary: Accept-Encoding, 304 per coding', async (path) => {
    const plain = await request(service.api, `GET ${path}`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toContain('Accept-Encoding');
    const tags = new Set([plain.headers.get('etag')]);
    for (const [acceptEncoding, coding] of [['gzip, deflate, br', 'br'], ['gzip, deflate', 'gzip'], ['br;q=0.5, gzip', 'gzip'], ['x-gzip', 'gzip']] as const) {
      const res = await request(service.api, `GET ${path}`, { headers: { 'accept-encoding': acceptEncoding } });
      expect([acceptEncoding, res.headers.get('content-encoding')]).toEqual([acceptEncoding, coding]);
      expect(res.headers.get('vary')).toContain('Accept-Encoding');
      expect(Number(res.headers.get('content-length'))).toBe(res.bytes.byteLength);
      expect(res.bytes.byteLength).toBeLessThan(plain.bytes.byteLength / 2);
      expect(decoders[coding](res.bytes).equals(Buffer.from(plain.bytes))).toBe(true);
      const etag = res.headers.get('etag')!;
      expect(etag).toBe(`${plain.headers.get('etag')!.slice(0, -1)}-${coding}"`);
      tags.add(etag);
      const again = await request(service.api, `GET ${path}`, { headers: { 'accept-encoding': acceptEncoding, 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.bytes.byteLength).toBe(0);
      // Another coding's tag is not this representation's.
      const other = await request(service.api, `GET ${path}`, { headers: { 'accept-encoding': acceptEncoding, 'if-none-match': plain.headers.get('etag')! } });
      expect(other.status).toBe(200);
    }
    expect(tags.size).toBe(3);
  });

  it('leaves small documents and the API alone', async () => {
    const catalog = await request(service.api, 'GET /.well-known/api-catalog', { headers: { 'accept-encoding': 'br' } });
    expect(catalog.bytes.byteLength).toBeLessThan(1024);
    expect(catalog.headers.get('content-encoding')).toBeNull();
    const health = await request(service.api, 'GET /api/health', { headers: { 'accept-encoding': 'br' } });
    expect(health.headers.get('content-encoding')).toBeNull();
  });
});
