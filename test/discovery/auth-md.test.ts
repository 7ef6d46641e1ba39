/**
 * /auth.md: the authentication guide for agents, with its numbers taken from code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '@sl/core';
import type { RunningServer } from '@sl/server';
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

    it('says there is no OAuth, no bearer token and no token endpoint', () => {
      expect(text).toMatch(/no OAuth 2\.0/i);
      expect(text).toMatch(/no bearer token/i);
      expect(text).toMatch(/no token endpoint/i);
    });
  });
});
