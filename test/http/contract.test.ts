/**
 * The HTTP contract's rules that do not depend on the store (request bodies, routing), over real HTTP
 * under every host: the two servers, and each embedding example (with its framework's own body
 * parsing on) at the root and under a base path.
 */
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { freshIp, request, sessionFrom, type RequestOptions } from '../support/client.ts';
import { MOUNTS, startTestServer } from '../support/server.ts';

describe.each(MOUNTS)('the HTTP contract on the $host host at "$basePath"', ({ host, basePath, ownsAll }) => {
  let server: RunningServer;
  const api = (path: string, options: RequestOptions = {}) => request(server.url, basePath + path, { ip: freshIp(), basePath, ...options });

  beforeAll(async () => {
    server = await startTestServer({ host, env: { TRUST_PROXY: '1', BASE_PATH: basePath } });
  });
  afterAll(() => server?.close());

  describe('request bodies', () => {
    it.each(['/api/signup', '/api/login', '/api/contact'])('%s: malformed JSON, other content types and non-object JSON are 400', async (path) => {
      const cases: RequestOptions[] = [
        { raw: '{"name": "Ada",', headers: { 'content-type': 'application/json' } },
        { raw: 'name=Ada&email=a%40b.co', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        { raw: '{"email":"a@b.co"}', headers: { 'content-type': 'text/plain' } },
        { raw: '"just a string"', headers: { 'content-type': 'application/json' } },
        { raw: '42', headers: { 'content-type': 'application/json' } },
        { raw: '', headers: { 'content-type': 'application/json' } },
        { method: 'POST' },
      ];
      for (const options of cases) {
        const res = await api(path, options);
        expect(res.status, JSON.stringify(options)).toBe(400);
        expect(res.body).toMatchObject({ ok: false, error: expect.any(String), code: expect.any(String) });
      }
    });

    it('decompresses gzip bodies, and answers 400 for a body that is not what its Content-Encoding says', async () => {
      const json = JSON.stringify({ name: 'G', email: 'g@example.com', message: 'Hello there, friend.' });
      const gzipped = await api('/api/contact', {
        raw: gzipSync(json) as unknown as string,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      expect(gzipped.status).toBe(200);
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const res = await api('/api/contact', { raw: json, headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
        expect(res.status, encoding).toBe(400);
        expect(res.body).toEqual({ ok: false, error: 'The request body could not be decompressed', code: 'undecodable_body' });
      }
      const cut = await api('/api/contact', {
        raw: gzipSync(json).subarray(0, 20) as unknown as string,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      expect(cut.status).toBe(400);
    });

    it('parses every +json media type it accepts (they were once accepted and then ignored)', async () => {
      const json = JSON.stringify({ name: 'P', email: 'p@example.com', message: 'Hello there, friend.' });
      for (const type of ['application/problem+json', 'application/merge-patch+json', 'application/ld+json; charset=utf-8', 'Application/JSON']) {
        const res = await api('/api/contact', { raw: json, headers: { 'content-type': type } });
        expect(res.status, type).toBe(200);
      }
    });

    it('reads content codings case-insensitively, and x-gzip as gzip (RFC 9110 8.4.1)', async () => {
      const json = JSON.stringify({ name: 'G', email: 'g@example.com', message: 'Hello there, friend.' });
      for (const encoding of ['GZIP', 'x-gzip', 'X-GZip', ' gzip ']) {
        const res = await api('/api/contact', { raw: gzipSync(json) as unknown as string, headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
        expect(res.status, encoding).toBe(200);
      }
    });

    it('answers 400 for a body that is not UTF-8 (RFC 8259 8.1) instead of rewriting it', async () => {
      const bodies = [
        Buffer.concat([Buffer.from('{"email":"u@example.com","password":"'), Buffer.from([0xff, 0xfe, 0xff, 0xfe, 0xff, 0xfe, 0xff, 0xfe]), Buffer.from('"}')]),
        Buffer.concat([Buffer.from('{"email":"u@example.com","password":"'), Buffer.from([0xc0, 0xc1, 0xc0, 0xc1, 0xc0, 0xc1, 0xc0, 0xc1]), Buffer.from('"}')]),
        // A UTF-8 encoded surrogate (CESU-8), which a lenient decoder turns into U+FFFD.
        Buffer.concat([Buffer.from('{"email":"u@example.com","password":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('xxxxxxx"}')]),
      ];
      for (const body of bodies) {
        const res = await api('/api/login', { raw: body as unknown as string, headers: { 'content-type': 'application/json' } });
        expect(res.status, body.toString('hex')).toBe(400);
        expect(res.body).toEqual({ ok: false, error: 'The request body is not valid UTF-8', code: 'invalid_utf8' });
      }
    });

    it('answers 413 ErrorResponse for a body over 64 KiB, and accepts one just under', async () => {
      const big = await api('/api/contact', { json: { name: 'G', email: 'g@example.com', message: 'x'.repeat(65 * 1024) } });
      expect(big.status).toBe(413);
      expect(big.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
      const under = await api('/api/contact', { json: { name: 'G', email: 'g@example.com', message: 'x'.repeat(5000), pad: 'y'.repeat(58 * 1024) } });
      expect(under.status).toBe(200);
    });
  });

  describe('routing', () => {
    it('answers 404 ErrorResponse for an unknown API path (the API’s namespace is the service’s, at an example’s root too)', async () => {
      const res = await api('/api/nothing-here');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('routes a path with an {id} segment to the service: ending a session without one is its 401', async () => {
      const res = await api('/api/sessions/some-id', { method: 'DELETE' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
    });

    it.each([
      ['GET', '/api/signup', 'POST, OPTIONS'],
      ['PUT', '/api/me', 'HEAD, GET, PATCH, DELETE, OPTIONS'],
      ['POST', '/api/health', 'HEAD, GET, OPTIONS'],
    ])('answers 405 ErrorResponse with Allow for %s %s', async (method, path, allow) => {
      const res = await api(path, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
    });
  });

  describe('paths are exact', () => {
    it.skipIf(!ownsAll)('an API path in another case is 404, sets no cookie and answers nothing personal; every answer but a document’s says no-store', async () => {
      const signup = await api('/api/signup', { json: { name: 'Casey', email: `casey.${Date.now()}@example.com`, password: 'long enough' } });
      const token = sessionFrom(signup)!;
      const checks = [
        await api('/API/ME', { session: token }),
        await api('/Api/Me', { session: token }),
        await api('/API/LOGIN', { json: { email: 'casey@example.com', password: 'long enough' } }),
        await api('/API/SIGNUP', { json: { name: 'Casey', email: 'other@example.com', password: 'long enough' } }),
        await api('/OPENAPI.JSON'),
      ];
      for (const res of checks) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ ok: false, error: 'Not found', code: 'unknown_path' });
        expect(res.setCookies).toEqual([]);
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
      for (const res of [await api('/api/me', { session: token }), await api('/api/health'), await api('/api/me', { method: 'DELETE' }), ...(ownsAll ? [await api('/nowhere')] : [])]) {
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
      // Documents may be cached for an hour (issue 12; they sent no caching header before).
      expect((await api('/openapi.json')).headers.get('cache-control')).toBe('public, max-age=3600');
    });
  });

  describe('framing and request targets', { tags: ['socket'] }, () => {
    /** A raw request with node:http, which (unlike fetch) can send any request target. */
    const raw = (method: string, target: string) =>
      new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
        const { port, host } = new URL(server.url);
        // The Host of the server's own URL (http://localhost:<port> since ADR 48), as a client of it sends.
        const req = httpRequest({ host: '127.0.0.1', port, method, path: target, headers: { host } }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        });
        req.on('error', reject).end();
      });

    it('sends Content-Length with every answer that has a body, HEAD answers included', async () => {
      const get = await raw('GET', `${basePath}/api/health`);
      expect(get.headers['content-length']).toBe(String(Buffer.byteLength(get.body)));
      expect(get.headers['transfer-encoding']).toBeUndefined();
      const head = await raw('HEAD', `${basePath}/api/health`);
      expect(head.body).toBe('');
      expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
      if (!ownsAll) return;
      const missing = await raw('GET', `${basePath}/nowhere`);
      expect(missing.headers['content-length']).toBe(String(Buffer.byteLength(missing.body)));
    });

    it('routes the absolute form of a target by its path, and ignores a fragment', async () => {
      expect((await raw('GET', `${server.url}${basePath}/api/health`)).status).toBe(200);
      expect((await raw('GET', `${server.url}${basePath}/openapi.json?x=1`)).status).toBe(200);
      expect((await raw('GET', `${basePath}/api/health#top`)).status).toBe(200);
      expect((await raw('GET', `/${basePath}/api/health`)).status).toBe(404);
    });
  });
});
