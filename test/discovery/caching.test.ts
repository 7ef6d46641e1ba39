/**
 * Caching of the discovery documents: each answer carries Cache-Control and an ETag, a client whose
 * copy is current gets 304 with no body, and a document written from the request's Host has a tag
 * of its own per host (beside the Vary headers of issue 9).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
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
    const res = await fetch(`${server.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    await res.body?.cancel();
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await fetch(`${server.url}${path}`, { headers: { 'if-none-match': ifNoneMatch } });
      expect(again.status, ifNoneMatch).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('cache-control')).toBe('public, max-age=3600');
      // Headers that describe a body are not sent with none, by either host.
      expect(again.headers.get('content-type')).toBeNull();
      expect(await again.text()).toBe('');
    }
    const changed = await fetch(`${server.url}${path}`, { headers: { 'if-none-match': '"something else"' } });
    expect(changed.status).toBe(200);
    await changed.body?.cancel();
  });

  it('gives a document written from the Host another tag per host, and the API no cache at all', async () => {
    const tag = async (url: string) => (await fetch(`${url}/openapi.json`)).headers.get('etag');
    expect(await tag(server.url)).not.toBe(await tag(server.url.replace('127.0.0.1', 'localhost')));
    const api = await fetch(`${server.url}/api/health`);
    expect(api.headers.get('cache-control')).toBe('no-store');
    expect(api.headers.get('etag')).toBeNull();
  });
});
