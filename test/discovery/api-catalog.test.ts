/**
 * /.well-known/api-catalog (RFC 9727): a linkset (RFC 9264) whose links resolve.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { RunningServer } from '@sl-accounts/server';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

describe.each(HOST_KINDS)('API catalog on the %s host', (host) => {
  const TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
  const LINK = '</.well-known/api-catalog>; rel="api-catalog"';

  /** RFC 9264 section 4.2: link context objects with an anchor and arrays of target objects. */
  const target = { type: 'object', required: ['href'], properties: { href: { type: 'string', format: 'uri' }, type: { type: 'string' } } };
  const LINKSET = {
    type: 'object',
    required: ['linkset'],
    additionalProperties: false,
    properties: {
      linkset: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['anchor', 'service-desc', 'service-doc', 'status'],
          properties: { anchor: { type: 'string', format: 'uri' } },
          additionalProperties: { type: 'array', minItems: 1, items: target },
        },
      },
    },
  };

  const ajv = new Ajv2020({ allErrors: true });
  addFormats.default(ajv);
  const validLinkset = ajv.compile(LINKSET);

  type Target = { href: string; type?: string };
  type Catalog = { linkset: ({ anchor: string } & Record<string, Target[]>)[] };

  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ host });
  });
  afterAll(() => server.close());

  describe('/.well-known/api-catalog', () => {
    it('GET answers a linkset anchored at the API, with the api-catalog Link', async () => {
      const res = await fetch(`${server.url}/.well-known/api-catalog`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(TYPE);
      expect(res.headers.get('link')).toBe(LINK);
      const catalog = (await res.json()) as Catalog;
      expect(validLinkset(catalog), ajv.errorsText(validLinkset.errors)).toBe(true);
      const [api] = catalog.linkset;
      expect(api!.anchor).toBe(`${server.url}/api`);
      expect(api!['service-desc']).toEqual([{ href: `${server.url}/openapi.json`, type: 'application/openapi+json' }]);
      expect(api!['service-doc']).toEqual([{ href: `${server.url}/docs/api`, type: 'text/html' }]);
      expect(api!.status).toEqual([{ href: `${server.url}/api/health`, type: 'application/json' }]);
    });

    it('HEAD answers the same headers and no body', async () => {
      const res = await fetch(`${server.url}/.well-known/api-catalog`, { method: 'HEAD' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(TYPE);
      expect(res.headers.get('link')).toBe(LINK);
      expect(await res.text()).toBe('');
    });

    it('links to resources that exist, with the media types it names', async () => {
      const catalog = (await (await fetch(`${server.url}/.well-known/api-catalog`)).json()) as Catalog;
      const targets = Object.entries(catalog.linkset[0]!).filter(([rel]) => rel !== 'anchor').flatMap(([, t]) => t as Target[]);
      for (const { href, type } of targets) {
        const res = await fetch(href);
        expect(res.status, href).toBe(200);
        expect(res.headers.get('content-type'), href).toContain(type!);
        await res.body?.cancel();
      }
    });

    it('uses PUBLIC_URL when set', async () => {
      const configured = await startTestServer({ host, env: { PUBLIC_URL: 'https://accounts.example.org' } });
      try {
        const catalog = (await (await fetch(`${configured.url}/.well-known/api-catalog`)).json()) as Catalog;
        expect(catalog.linkset[0]!.anchor).toBe('https://accounts.example.org/api');
        expect(catalog.linkset[0]!['service-desc']![0]!.href).toBe('https://accounts.example.org/openapi.json');
      } finally {
        await configured.close();
      }
    });
  });
});
