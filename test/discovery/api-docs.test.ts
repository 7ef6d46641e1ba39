/**
 * /docs/api: over HTTP (its policy, and the Scalar bundle compressed once, with validators and a
 * year-long lifetime under a content-hashed URL), then in a real browser: headless Chromium
 * (playwright-core drives a Chromium found on this machine, see test/support/chromium.ts) renders
 * the Scalar reference from the package's own files, with nothing blocked or missing, and a page on
 * an allowed origin calls /mcp across origins.
 *
 * Without Chromium the browser tests are skipped, and say why; under CI=true they fail instead.
 */
// @module-tag process
import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { chromium as playwright, type Browser } from 'playwright-core';
import type { RunningServer } from '@sl-accounts/server';
import { INSTALL_CHROMIUM, browserRequired, findChromium } from '../support/chromium.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

const chromium = findChromium();
const required = browserRequired();
if ('missing' in chromium && !required) {
  // Shown by the default reporter, so a green run says plainly that the browser tests did not run.
  console.warn(`Skipping the /docs/api browser tests: ${chromium.missing}. To run them, ${INSTALL_CHROMIUM}.`);
}

/** A GET whose body arrives as sent: fetch would ask for a coding and decode it itself. */
function rawGet(url: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject).end();
  });
}

/** A page of its own origin (`http://<address>:<port>`), as another site would serve an MCP client. */
async function servePage(address: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>an MCP client page</title>'));
  server.listen(0, address);
  await once(server, 'listening');
  return { origin: `http://${address}:${(server.address() as AddressInfo).port}`, server };
}

/** Both hosts at the root, and the Koa server under a base path: the page, its scripts and its document move inside it. */
const ROWS = [...HOST_KINDS.map((host) => ({ host, basePath: '' })), { host: 'koa' as const, basePath: '/accounts' }];

describe.each(ROWS)('API docs on the $host host at "$basePath"', ({ host, basePath }) => {
  let server: RunningServer;
  /** The service's base URL: the server's, then the base path. */
  let base: string;
  let scripts: string[];
  beforeAll(async () => {
    server = await startTestServer({ host, env: { BASE_PATH: basePath } });
    base = server.url + basePath;
    const html = await (await fetch(`${base}/docs/api`)).text();
    scripts = [...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map((m) => m[1]!);
  });
  afterAll(() => server?.close());

  describe('/docs/api over HTTP', () => {
    it('is HTML with a Content-Security-Policy that allows no other origin and no inline script', async () => {
      const res = await fetch(`${base}/docs/api`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/https?:|\*|'unsafe-eval'/);
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    });

    it('is revalidated on every visit (304 when unchanged) and names its scripts by content hash', async () => {
      const res = await fetch(`${base}/docs/api`);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^"[\w-]{27}"$/);
      expect((await fetch(`${base}/docs/api`, { headers: { 'if-none-match': etag } })).status).toBe(304);
      expect(scripts).toHaveLength(2);
      for (const src of scripts) expect(src.slice(basePath.length)).toMatch(/^\/docs\/api\/(init|scalar)\.[\w-]{27}\.js$/);
      for (const src of scripts) expect(src.startsWith(`${basePath}/docs/api/`)).toBe(true);
    });

    // Compressing and decompressing 4 MB in two codings: 30 s was not enough at load 14-18.
    it('sends the 4 MB Scalar bundle compressed (br, else gzip), with a tag per coding, a year-long immutable lifetime and 304 when current', { timeout: 120_000 }, async () => {
      const bundle = `${server.url}${scripts.find((s) => s.includes('/scalar.'))!}`;
      const plain = await rawGet(bundle);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.length).toBeGreaterThan(4_000_000);
      const decoders = { br: brotliDecompressSync, gzip: gunzipSync };
      const tags = new Set([plain.headers.etag]);
      for (const [acceptEncoding, coding] of [['gzip, deflate, br', 'br'], ['gzip', 'gzip'], ['br;q=0.5, gzip', 'gzip'], ['x-gzip', 'gzip']] as const) {
        const res = await rawGet(bundle, { 'accept-encoding': acceptEncoding });
        expect(res.headers['content-encoding'], acceptEncoding).toBe(coding);
        expect(res.headers['content-type']).toMatch(/^text\/javascript/);
        expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(res.headers.vary).toBe('Accept-Encoding');
        expect(Number(res.headers['content-length'])).toBe(res.body.length);
        expect(res.body.length).toBeLessThan(plain.body.length / 3);
        expect(decoders[coding](res.body).equals(plain.body)).toBe(true);
        tags.add(res.headers.etag);
        const again = await rawGet(bundle, { 'accept-encoding': acceptEncoding, 'if-none-match': res.headers.etag as string });
        expect(again.status).toBe(304);
        expect(again.body.length).toBe(0);
      }
      expect(tags.size).toBe(3);
      const head = await rawGet(bundle, { 'accept-encoding': 'br' }, 'HEAD');
      expect(head.headers['content-encoding']).toBe('br');
      expect(Number(head.headers['content-length'])).toBeLessThan(plain.body.length / 3);
      expect(head.body.length).toBe(0);
    });

    it('answers 404 for a script hash it does not serve', async () => {
      expect((await fetch(`${base}/docs/api/scalar.0000000000000000000000000000.js`)).status).toBe(404);
    });
  });

  describe(`/docs/api in headless Chromium${'missing' in chromium ? ` (${required ? 'required: CI=true' : `skipped: ${chromium.missing}`})` : ''}`, () => {
    let browser: Browser | undefined;
    beforeAll(async () => {
      if ('missing' in chromium) {
        if (required) throw new Error(`CI=true requires the /docs/api browser tests, but ${chromium.missing}: ${INSTALL_CHROMIUM}.`);
        return;
      }
      browser = await playwright.launch({
        executablePath: chromium.path,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      });
    });
    afterAll(() => browser?.close());

    /** The browser, or the test is skipped with the reason in its report. */
    const launched = (ctx: TestContext): Browser => {
      if (!browser) ctx.skip(`${'missing' in chromium ? chromium.missing : 'no browser'}; to run it, ${INSTALL_CHROMIUM}`);
      return browser!;
    };

    it('lists every operation and the request examples, with no failed request and no CSP violation', { timeout: 60_000 }, async (ctx) => {
      const page = await launched(ctx).newPage();
      const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, { summary: string }>> };
      const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.summary));
      // The spec's six, issue 20's six, issue 28's four, issue 34's second factor's five and its passkeys' eleven,
      // issue 42's six (identity providers) and issue 43's two (the owner's activity and export).
      expect(operations).toHaveLength(16 + 5 + 11 + 6 + 2);

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

      // A browser landing on / is sent to the reference.
      await page.goto(`${base}/`, { waitUntil: 'networkidle' });
      expect(page.url()).toBe(`${base}/docs/api`);
      // The request samples carry the documented examples, not empty strings (they render last).
      const expected = [...operations, 'correct horse battery staple'];
      await page.waitForFunction(
        (texts) => {
          const { document } = globalThis as unknown as { document: { body: { innerText: string } } };
          return texts.every((text) => document.body.innerText.includes(text));
        },
        expected,
        { timeout: 30_000 },
      );
      const text = (await page.evaluate('document.body.innerText')) as string;
      for (const line of expected) expect(text).toContain(line);
      expect(text).toContain('sl-accounts API');

      expect(await page.evaluate('globalThis.cspViolations')).toEqual([]);
      expect(failures).toEqual([]);
      expect(foreign).toEqual([]);
      await page.close();
    });

    it('lets a page on an allowed origin call /mcp across origins (preflight and answer), and a foreign page not', async (ctx) => {
      const page = await launched(ctx).newPage();
      // Pages on other origins, on loopback like the server (a browser refuses a public page's calls
      // to loopback addresses by itself): 127.0.0.1 is allowed to call /mcp, 127.0.0.2 is not.
      const pages = await Promise.all([servePage('127.0.0.1'), servePage('127.0.0.2')]);
      ctx.onTestFinished(() => Promise.all(pages.map(({ server }) => new Promise((resolve) => server.close(resolve)))).then(() => undefined));
      const [allowedPage, foreignPage] = pages;
      const call = (url: string) =>
        page.evaluate(async (target) => {
          try {
            const res = await fetch(target, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } } }),
            });
            return { status: res.status, requestId: res.headers.get('x-request-id'), text: await res.text() };
          } catch (error) {
            return { failed: String(error) };
          }
        }, url);

      await page.goto(allowedPage!.origin);
      const allowed = await call(`${base}/mcp`);
      expect(allowed).toMatchObject({ status: 200, requestId: expect.stringMatching(/\S/) });
      expect((allowed as { text: string }).text).toContain('"protocolVersion":"2025-06-18"');

      await page.goto(foreignPage!.origin);
      expect(await call(`${base}/mcp`)).toEqual({ failed: expect.stringMatching(/Failed to fetch/) });
      await page.close();
    });
  });
});
