/**
 * OPTIONS has one shape on every path the service serves (issue 32): 204, no body, `Allow` naming
 * the path's methods and OPTIONS; a public document adds its CORS grant, and `/mcp` its own (for
 * its allowed origins). In-process: the contract's answer, whatever the host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiReferencePage } from '@sl-accounts/docs-page';
import { request } from '@sl-accounts/service/http/testing';
import { createService, type Service } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';

describe('OPTIONS', () => {
  let service: Service;
  beforeAll(async () => {
    service = await createService({ store: createMemoryStore(), docsPage: apiReferencePage, mailer: { send: async () => {} } });
  });
  afterAll(() => service?.close());

  it.each([
    ['/api/signup', 'POST, OPTIONS', false],
    ['/api/me', 'HEAD, GET, PATCH, DELETE, OPTIONS', false],
    ['/api/sessions/some-id', 'DELETE, OPTIONS', false],
    ['/openapi.json', 'HEAD, GET, OPTIONS', true],
    ['/.well-known/agent-skills/account-api/SKILL.md', 'HEAD, GET, OPTIONS', true],
    ['/docs/api', 'HEAD, GET, OPTIONS', false],
    ['/verify-email', 'HEAD, GET, OPTIONS', false],
    ['/mcp', 'POST, OPTIONS', false],
  ])('%s: 204, Allow %s, no body', async (path, allow, cors) => {
    const res = await request(service.api, `OPTIONS ${path}`);
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.bytes.byteLength).toBe(0);
    expect(res.headers.get('access-control-allow-origin')).toBe(cors ? '*' : null);
  });

  it('names the same methods in a 405’s Allow', async () => {
    const res = await request(service.api, 'PUT /api/signup');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
  });
});
