/**
 * `GET /`: a browser is sent to the API reference; a tool gets a small JSON index whose links all
 * resolve. Both vary with Accept, under either host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe.each(HOST_KINDS)('GET / on the %s host', (host) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ host });
  });
  afterAll(() => server.close());

  it('sends a browser to /docs/api', async () => {
    const res = await fetch(`${server.url}/`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/docs/api');
    expect(res.headers.get('vary')).toBe('Accept, Host');
    expect(await res.text()).toContain('href="/docs/api"');
    expect((await fetch(`${server.url}/`, { headers: { accept: BROWSER_ACCEPT } })).url).toBe(`${server.url}/docs/api`);
  });

  it.each([undefined, '*/*', 'application/json', 'text/html;q=0.5, application/json'])('answers Accept: %s with the index, every link of which resolves', async (accept) => {
    const res = await fetch(`${server.url}/`, { headers: accept ? { accept } : {} });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('vary')).toBe('Accept, Host');
    expect(res.headers.get('link')).toBe('</.well-known/api-catalog>; rel="api-catalog"');
    const index = (await res.json()) as { service: string; version: string; links: Record<string, string> };
    expect(index).toMatchObject({ service: 'sl-accounts', version: '1.0.0' });
    expect(Object.keys(index.links).sort()).toEqual(['agentSkills', 'apiCatalog', 'authGuide', 'docs', 'health', 'mcpServerCard', 'openapi']);
    expect(index.links.docs).toBe(`${server.url}/docs/api`);
    for (const [name, href] of Object.entries(index.links)) {
      const target = await fetch(href);
      expect(target.status, name).toBe(200);
      await target.body?.cancel();
    }
  });

  it('answers HEAD with the same headers and no body', async () => {
    const res = await fetch(`${server.url}/`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await res.text()).toBe('');
  });

  it('uses PUBLIC_URL for its links when set', async () => {
    const configured = await startTestServer({ host, env: { PUBLIC_URL: 'https://accounts.example.org' } });
    try {
      const res = await fetch(`${configured.url}/`);
      expect(res.headers.get('vary')).toBe('Accept');
      expect(((await res.json()) as { links: Record<string, string> }).links.openapi).toBe('https://accounts.example.org/openapi.json');
    } finally {
      await configured.close();
    }
  });
});
