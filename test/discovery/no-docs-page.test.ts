/**
 * The discovery documents without a docs page (`discoveryDocuments()` with no `docsPage`, as an
 * embedder composes them who installs no Scalar): nothing links to a page that is not there. The
 * index names no docs, `GET /` answers a browser with the index too (no redirect), the API catalog
 * has no `service-doc`, no document mentions `/docs/api`, and `/docs/api` is 404. The contract is
 * composed by hand and asked in-process (`api.handle`), at the root and under a mount path.
 */
import { describe, expect, it } from 'vitest';
import { Pbkdf2PasswordHasher, createAccounts, randomTokens, systemClock } from '@sl-accounts/service/core';
import { discoveryDocuments } from '@sl-accounts/service/discovery';
import { API_REFERENCE_PATH, apiReferencePage } from '@sl-accounts/docs-page';
import { createHttpApi, isStreamBody, type HttpAnswer, type HttpApi } from '@sl-accounts/service/http';
import { createMcpEndpoint } from '@sl-accounts/service/mcp';
import { createMemoryStore } from '@sl-accounts/store-memory';

const ORIGIN = 'http://accounts.test';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

function compose(basePath: string, withPage: boolean): HttpApi {
  const accounts = createAccounts({ store: createMemoryStore(), hasher: new Pbkdf2PasswordHasher({ iterations: 1 }), clock: systemClock, tokens: randomTokens });
  // The MCP endpoint as an embedder adds it: its card names the page only when one is served.
  const mcp = createMcpEndpoint({ accounts, ...(withPage ? { websitePath: API_REFERENCE_PATH } : {}) });
  return createHttpApi({ accounts, basePath, mcp, documents: discoveryDocuments({ basePath, extra: mcp.documents(basePath), ...(withPage ? { docsPage: apiReferencePage } : {}) }) });
}

async function get(api: HttpApi, url: string, headers: Record<string, string> = {}): Promise<HttpAnswer & { text: string }> {
  const answer = await api.handle({ method: 'GET', url, headers: { host: 'accounts.test', ...headers }, remoteAddress: '127.0.0.1', body: null });
  const { body } = answer;
  if (isStreamBody(body)) throw new Error(`${url}: a document answered with a stream`);
  return { ...answer, text: body === null ? '' : typeof body === 'string' ? body : Buffer.from(body).toString('utf8') };
}

/** A link of a document, absolute from the origin, as a request target. */
const target = (href: string) => {
  expect(href.startsWith(ORIGIN), href).toBe(true);
  return href.slice(ORIGIN.length);
};

describe.each(['', '/accounts'])('the discovery documents without a docs page, mounted at "%s"', (basePath) => {
  const api = compose(basePath, false);

  it('serves no /docs/api, nor anything under it', async () => {
    expect(api.paths.some((path) => path.includes('/docs'))).toBe(false);
    for (const path of ['/docs/api', '/docs/api/init.js', '/docs/api/scalar.0000000000000000000000000000.js']) {
      expect((await get(api, basePath + path, { accept: BROWSER_ACCEPT })).status, path).toBe(404);
    }
  });

  it.each([undefined, '*/*', 'application/json', BROWSER_ACCEPT])('answers GET / with Accept: %s with the index, which names no docs and every link of which resolves', async (accept) => {
    const res = await get(api, `${basePath}/`, accept ? { accept } : {});
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers.location).toBeUndefined();
    // One representation for every Accept, so it varies with the Host alone (the links are written from it).
    expect(res.headers.vary).toBe('Host');
    expect(res.headers.link).toBe('</.well-known/api-catalog>; rel="api-catalog"');
    const index = JSON.parse(res.text) as { links: Record<string, string> };
    expect(Object.keys(index.links).sort()).toEqual(['agentSkills', 'apiCatalog', 'authGuide', 'health', 'mcpServerCard', 'openapi']);
    for (const [name, href] of Object.entries(index.links)) expect((await get(api, target(href))).status, name).toBe(200);
  });

  it('lists no service-doc in the API catalog, and every link it has resolves', async () => {
    const res = await get(api, `${basePath}/.well-known/api-catalog`);
    expect(res.status).toBe(200);
    const [entry] = (JSON.parse(res.text) as { linkset: Record<string, unknown>[] }).linkset;
    expect(Object.keys(entry!).sort()).toEqual(['anchor', 'service-desc', 'status']);
    for (const rel of ['service-desc', 'status']) {
      for (const { href } of entry![rel] as { href: string }[]) expect((await get(api, target(href))).status, rel).toBe(200);
    }
  });

  it('mentions /docs/api in no document', async () => {
    const skills = JSON.parse((await get(api, `${basePath}/.well-known/agent-skills/index.json`)).text) as { skills: { url: string }[] };
    const paths = ['/', '/openapi.json', '/auth.md', '/.well-known/api-catalog', '/.well-known/agent-skills/index.json', '/.well-known/mcp/server-card.json', '/mcp/server-card', ...skills.skills.map((skill) => target(skill.url).slice(basePath.length))];
    expect(skills.skills.length).toBeGreaterThan(0);
    for (const path of paths) {
      const res = await get(api, basePath + path);
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toMatch(/\/docs\b/);
    }
  });
});

describe('the same documents with the docs page', () => {
  it('link it from the index, the catalog and a browser’s GET /, under the mount path', async () => {
    const api = compose('/accounts', true);
    const index = JSON.parse((await get(api, '/accounts/')).text) as { links: Record<string, string> };
    expect(index.links.docs).toBe(`${ORIGIN}/accounts/docs/api`);
    const catalog = JSON.parse((await get(api, '/accounts/.well-known/api-catalog')).text) as { linkset: Record<string, unknown>[] };
    expect(catalog.linkset[0]!['service-doc']).toEqual([{ href: `${ORIGIN}/accounts/docs/api`, type: 'text/html' }]);
    const browser = await get(api, '/accounts/', { accept: BROWSER_ACCEPT });
    expect(browser.status).toBe(302);
    expect(browser.headers.location).toBe('/accounts/docs/api');
    expect(browser.headers.vary).toBe('Accept, Host');
    const card = JSON.parse((await get(api, '/accounts/mcp/server-card')).text) as { websiteUrl?: string };
    expect(card.websiteUrl).toBe(`${ORIGIN}/accounts/docs/api`);
    const page = await get(api, '/accounts/docs/api');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});
