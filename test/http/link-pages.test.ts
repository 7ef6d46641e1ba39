/**
 * A mailed link lands (issue 32): with no VERIFY_URL or RESET_URL, the links point at the service's
 * own pages under its base path, at PUBLIC_URL or else at the address it listens on, and the service
 * serves them there: plain HTML, a same-origin script and stylesheet, a strict policy, no referrer.
 * Opening the verification page confirms nothing (mail scanners open links). Configured URLs still
 * win, and then the service serves no page of its own. Store-independent: the first host, memory
 * store. The pages in a browser: test/discovery/link-pages-chromium.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { request, sessionFrom } from '../support/client.ts';
import { capturingLogger } from '../support/logger.ts';
import { nextMailedLink } from '../support/reset-mail.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };

describe(`the mailed links’ own pages on the ${HOST_KINDS[0]} host`, () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const start = async (env: Record<string, string>) => {
    const { logger, lines } = capturingLogger('info');
    server = await startTestServer({ host: HOST_KINDS[0], env: { MAIL_POLL_MS: '20', ...env }, logger });
    return { url: server.url, lines };
  };

  it('under BASE_PATH, without PUBLIC_URL: the links point at the server’s own address and land on its pages', async () => {
    const { url, lines } = await start({ BASE_PATH: '/accounts' });
    const signup = await request(url, '/accounts/api/signup', { json: ADA, basePath: '/accounts' });
    const link = new URL(await nextMailedLink(lines, ADA.email, 'confirm'));
    expect(link.origin + link.pathname).toBe(`${url}/accounts/verify-email`);
    expect(link.searchParams.get('token')).toMatch(/^[\w-]{43}$/);

    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy') ?? '';
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "form-action 'none'"]) expect(csp).toContain(directive);
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).not.toContain(link.searchParams.get('token'));
    expect(html).toContain('data-api="/accounts/api"');
    expect(html).toMatch(/aria-live="polite"/);
    // Opening the page confirmed nothing.
    const me = await request(url, '/accounts/api/me', { session: sessionFrom(signup)!, basePath: '/accounts' });
    expect((me.body as { user: { emailVerified: boolean } }).user.emailVerified).toBe(false);
    // Its script and stylesheet come from under the base path, and nothing else is loaded.
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((src) => !src.startsWith('data:'));
    expect(assets).toHaveLength(2);
    for (const asset of assets) {
      expect(asset).toMatch(/^\/accounts\/link-pages\/page\.[\w-]{27}\.(js|css)$/);
      const res = await fetch(`${url}${asset}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }

    await request(url, '/accounts/api/password-reset', { json: { email: ADA.email }, basePath: '/accounts' });
    const reset = new URL(await nextMailedLink(lines, ADA.email, 'reset'));
    expect(reset.origin + reset.pathname).toBe(`${url}/accounts/reset-password`);
    const resetPage = await (await fetch(reset)).text();
    expect(resetPage).toMatch(/<label for="password">/);
    expect(resetPage).toMatch(/<label for="repeat">/);
  });

  it('with PUBLIC_URL, the links are its own pages there, under the base path', async () => {
    const { url, lines } = await start({ BASE_PATH: '/accounts', PUBLIC_URL: 'https://accounts.example.org' });
    await request(url, '/accounts/api/signup', { json: ADA, basePath: '/accounts', headers: { origin: 'https://accounts.example.org' } });
    expect(await nextMailedLink(lines, ADA.email, 'confirm')).toMatch(/^https:\/\/accounts\.example\.org\/accounts\/verify-email\?token=[\w-]{43}$/);
  });

  it('VERIFY_URL and RESET_URL still win, and then the service serves no page of its own', async () => {
    const { url, lines } = await start({ VERIFY_URL: 'https://app.example.org/verify', RESET_URL: 'https://app.example.org/reset' });
    await request(url, '/api/signup', { json: ADA });
    expect(await nextMailedLink(lines, ADA.email, 'confirm')).toMatch(/^https:\/\/app\.example\.org\/verify\?token=/);
    await request(url, '/api/password-reset', { json: { email: ADA.email } });
    expect(await nextMailedLink(lines, ADA.email, 'reset')).toMatch(/^https:\/\/app\.example\.org\/reset\?token=/);
    for (const path of ['/verify-email', '/reset-password']) expect((await fetch(`${url}${path}`)).status).toBe(404);
  });
});
