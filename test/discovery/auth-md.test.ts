/**
 * /auth.md: the authentication guide for agents, with its numbers taken from code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_LOGIN_LIMIT, RATE_LIMITS } from '@sl-accounts/service/core';
import { routeResponses } from '@sl-accounts/service/discovery';
import { API_ROUTES } from '@sl-accounts/service/http';
import type { RunningServer } from '@sl-accounts/server';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

describe.each(HOST_KINDS)('auth.md on the %s host', (host) => {
  let server: RunningServer;
  let text: string;
  let res: Response;
  beforeAll(async () => {
    server = await startTestServer({ host });
    res = await fetch(`${server.url}/auth.md`);
    text = await res.text();
  });
  afterAll(() => server.close());

  describe('/auth.md', () => {
    it('is Markdown whose first line is an H1 naming auth.md', () => {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/markdown(;|$)/);
      const [first] = text.split('\n');
      expect(first).toMatch(/^# .*auth\.md/);
      expect(text.match(/^# /gm)).toHaveLength(1);
    });

    it('describes the cookie scheme, signup and login with examples, the lifetime and logout', () => {
      expect(text).toContain('sl_session');
      expect(text).toContain('Cookie: sl_session=<token>');
      expect(text).toContain('HttpOnly; Secure; SameSite=Lax');
      expect(text).toContain(`curl -i -X POST "${server.url}/api/signup"`);
      expect(text).toContain(`curl -i -X POST "${server.url}/api/login"`);
      expect(text).toContain(`curl -i -X POST "${server.url}/api/logout"`);
      expect(text).toContain('7 days');
      expect(text).toContain('Max-Age=604800');
      expect(text).toContain(`${server.url}/openapi.json`);
    });

    it('states the rate limits of RATE_LIMITS', () => {
      expect(text).toContain(`| \`POST /api/login\` | ${RATE_LIMITS.login.limit} requests per 15 minutes |`);
      expect(text).toContain(`| \`POST /api/signup\` | ${RATE_LIMITS.signup.limit} requests per hour |`);
      expect(text).toContain(`| \`POST /api/contact\` | ${RATE_LIMITS.contact.limit} requests per hour |`);
      expect(text).toContain('Retry-After');
    });

    it('lists every status of every operation, from the same route table as the OpenAPI document', () => {
      const table = text.slice(text.indexOf('## Answers'));
      for (const route of API_ROUTES) {
        for (const [status, response] of routeResponses(route)) {
          const row = table.split('\n').find((line) => line.startsWith(`| \`${status}\` |`) && line.endsWith(` | ${response.description} |`));
          expect(row, `${route.operationId} ${status}`).toBeDefined();
          expect(row).toContain(`\`${route.method} ${route.path}\``);
        }
      }
      for (const status of ['400', '401', '403', '409', '413', '415', '429', '500', '503']) expect(table).toContain(`| \`${status}\` |`);
    });

    it('states the body rules, the per-account limit and what the field rules do', () => {
      expect(text).toContain('at most 64 KiB (65536 bytes) after decompression');
      expect(text).toMatch(/gzip, deflate or br; another encoding gets `415`/);
      expect(text).toContain(`${ACCOUNT_LOGIN_LIMIT.limit} failed logins per 15 minutes`);
      expect(text).toContain('the per-account limit on failed logins');
      // The login password has no bound of its own; the body's is the one there is.
      expect(text).toContain('| `password` | string | yes | any length (the whole body is at most 64 KiB) |');
      expect(text).toContain('| `password` | string | yes | 8 to 200 characters |');
      expect(text).toContain('the name is trimmed');
      expect(text).toMatch(/A login sent without the old cookie leaves that session alive until it expires or is logged out/);
    });

    it('says there is no OAuth, no bearer token and no token endpoint', () => {
      expect(text).toMatch(/no OAuth 2\.0/i);
      expect(text).toMatch(/no bearer token/i);
      expect(text).toMatch(/no token endpoint/i);
    });
  });
});
