/**
 * /docs/api in a real browser: headless Chromium (playwright-core drives the system's chromium)
 * renders the Scalar reference from the package's own files, with nothing blocked or missing.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import type { RunningServer } from '@sl/server';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

describe.each(HOST_KINDS)('API docs on the %s host', (host) => {
  const CHROMIUM = '/usr/bin/chromium';

  let server: RunningServer;
  let browser: Browser;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing; the /docs/api test needs it: apt-get install -y chromium`);
    }
    server = await startTestServer({ host });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  describe('/docs/api', () => {
    it('is HTML with a Content-Security-Policy that allows no other origin and no inline script', async () => {
      const res = await fetch(`${server.url}/docs/api`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/https?:|\*|'unsafe-eval'/);
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    });

    it('lists every operation, with no failed request and no CSP violation', async () => {
      const operations = Object.values(
        ((await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { summary: string }>> }).paths,
      ).flatMap((methods) => Object.values(methods).map((op) => op.summary));
      expect(operations).toHaveLength(6);

      const page = await browser.newPage();
      const failures: string[] = [];
      const foreign: string[] = [];
      page.on('requestfailed', (r) => failures.push(`${r.url()}: ${r.failure()?.errorText}`));
      page.on('response', (r) => {
        if (r.status() >= 400) failures.push(`${r.url()}: HTTP ${r.status()}`);
      });
      page.on('request', (r) => {
        if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) foreign.push(r.url());
      });
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) failures.push(`console: ${m.text()}`);
      });
      // The project compiles without the DOM library, so browser-side code is a string or casts.
      await page.addInitScript({
        content: `globalThis.cspViolations = [];
          document.addEventListener('securitypolicyviolation', (e) =>
            globalThis.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));`,
      });

      await page.goto(`${server.url}/docs/api`, { waitUntil: 'networkidle' });
      await page.waitForFunction(
        (summaries) => {
          const { document } = globalThis as unknown as { document: { body: { innerText: string } } };
          return summaries.every((summary) => document.body.innerText.includes(summary));
        },
        operations,
        { timeout: 20_000 },
      );
      const text = (await page.evaluate('document.body.innerText')) as string;
      for (const summary of operations) expect(text).toContain(summary);
      expect(text).toContain('sl-accounts API');

      expect(await page.evaluate('globalThis.cspViolations')).toEqual([]);
      expect(failures).toEqual([]);
      expect(foreign).toEqual([]);
      await page.close();
    });
  });
});
