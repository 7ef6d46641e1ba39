/**
 * `/docs/api`: an HTML reference that Scalar renders from /openapi.json in the browser. The Scalar
 * bundle is served from this package's own dependency, so the page needs no CDN and works offline.
 * Its scripts live at URLs that carry a hash of their content, so browsers keep them for a year and
 * never ask again; the page itself is revalidated on every visit, so a new bundle shows at once.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { preferredEncoding, type DocsPage } from '@sl-accounts/service/discovery';
import { headerValue, type HttpAnswer, type HttpRequest } from '@sl-accounts/service/http';
import { IMMUTABLE_CACHE_CONTROL, contentHash } from './caching.ts';

/** Where the page is served, under the service's base path. */
export const API_REFERENCE_PATH = '/docs/api';

/** Scalar's self-contained browser build (scripts and styles in one file, 4.35 MB). */
const BUNDLE_URL = new URL('./browser/standalone.js', import.meta.resolve('@scalar/api-reference'));

/**
 * Scalar's default theme with its grey and method colours darkened to WCAG AA (4.5:1 for text) on
 * every background it puts them on (#fff, #fbfbfb, #f6f6f6, #e7e7e7; dark: #0f0f0f to #272727).
 * Its own values measured 1.6:1 (PATCH's yellow) to 4.26:1 under axe-core (issue 40). `!important`
 * because the theme sets them again for wide-gamut screens, later in the cascade.
 */
const CONTRAST_CSS = `.light-mode {
  --scalar-color-2: #636363 !important;
  --scalar-color-3: #676767 !important;
  --scalar-color-green: #007049 !important;
  --scalar-color-blue: #006cae !important;
  --scalar-color-yellow: #7f6300 !important;
  --scalar-color-red: #c8000a !important;
  --scalar-color-orange: #b83f00 !important;
}
.dark-mode {
  --scalar-color-3: #959595 !important;
  --scalar-color-red: #ff5c5c !important;
}`;

// Runs before the bundle. Zod inside Scalar probes for eval (`Function('')`), which the policy
// forbids; jitless mode skips the probe. Every option that would reach another origin is off: web
// fonts, telemetry, the AI agent, the MCP promotion. The API client stays, and talks to this origin.
// The document's URL is the page's to say (`data-openapi`), so this script is one file under every
// mount: its content-hashed path is the same wherever a host's router puts the service, and a router
// that routes the root's paths (`api.mountPaths`) routes it too.
const INIT_SCRIPT = `globalThis.__zod_globalConfig = { jitless: true };
document.addEventListener('DOMContentLoaded', () => {
  const app = document.getElementById('app');
  Scalar.createApiReference(app, { ...${JSON.stringify({
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
    defaultOpenAllTags: true,
    customCss: CONTRAST_CSS,
  })}, url: app.dataset.openapi });
  // Scalar's copy buttons of code blocks (the request and response examples) show their text
  // ("cURL", "Copy") only while the block is hovered or focused, so at rest they have no name; and a
  // tag's list of endpoints scrolls where no key reaches. No option changes either, so the page
  // names the buttons (with the word they show) and lets the lists take the focus.
  const label = () => {
    for (const button of app.querySelectorAll('button.scalar-code-copy:not([aria-label])')) button.setAttribute('aria-label', 'Copy code');
    for (const list of app.querySelectorAll('ul.endpoints:not([tabindex])')) list.setAttribute('tabindex', '0');
  };
  new MutationObserver(label).observe(app, { childList: true, subtree: true });
});
`;

/**
 * Scripts from this origin only, and no eval. Scalar injects `<style>` elements and `style`
 * attributes that carry no nonce, so styles need 'unsafe-inline'. Data URIs cover the inline icons
 * and the empty favicon.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Text for an HTML attribute value or element: the five characters that could end either, escaped. */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (title: string, openapi: string, scripts: readonly string[]) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
</head>
<body>
<div id="app" data-openapi="${escapeHtml(openapi)}"></div>
${scripts.map((src) => `<script src="${escapeHtml(src)}"></script>`).join('\n')}
</body>
</html>
`;

const SCRIPT = 'text/javascript; charset=utf-8';

/** A 200 answer of `type` with any further headers. */
function documentAnswer(type: string, body: string | Uint8Array, headers: Record<string, string> = {}): HttpAnswer {
  return { status: 200, headers: { 'content-type': type, ...headers }, body };
}

/** Content codings the bundle is offered in, best first (brotli is ~17 % smaller than gzip here). */
type Coding = 'br' | 'gzip' | 'identity';
const CODINGS: readonly Coding[] = ['br', 'gzip'];

/**
 * Each coding of the bundle, made once per process on first use and shared by every server in it.
 * Brotli at quality 9 takes ~1 s for 4.35 MB (quality 11 takes ~18 s and saves 10 % more);
 * compression runs on libuv's pool, off the event loop.
 */
const BUNDLE_CODINGS: Readonly<Record<Coding, () => Promise<Buffer>>> = {
  identity: () => readFile(BUNDLE_URL),
  gzip: async () => promisify(gzip)(await readFile(BUNDLE_URL), { level: 9 }),
  br: async () => {
    const raw = await readFile(BUNDLE_URL);
    return promisify(brotliCompress)(raw, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
    });
  },
};
const encoded = new Map<Coding, Promise<Buffer>>();

function bundleIn(coding: Coding): Promise<Buffer> {
  let bytes = encoded.get(coding);
  if (!bytes) {
    bytes = BUNDLE_CODINGS[coding]();
    // A failed read is retried by the next request rather than remembered.
    bytes.catch(() => encoded.delete(coding));
    encoded.set(coding, bytes);
  }
  return bytes;
}

/** The bundle's content hash, for its URL: read and hashed once per process (~10 ms), then dropped. */
let bundleHash: string | undefined;
const hashOfBundle = () => (bundleHash ??= contentHash(readFileSync(BUNDLE_URL)));

/** An immutable script answer in the coding the client prefers; the tag names hash and coding. */
async function scriptAnswer(request: HttpRequest, hash: string, body: (coding: Coding) => Promise<Buffer> | Buffer, codings: readonly Coding[]): Promise<HttpAnswer> {
  const coding = preferredEncoding(headerValue(request.headers, 'accept-encoding'), codings) as Coding;
  const headers: Record<string, string> = {
    'cache-control': IMMUTABLE_CACHE_CONTROL,
    // A strong tag per representation: the same bytes in another coding are another entity.
    etag: `"${hash}${coding === 'identity' ? '' : `-${coding}`}"`,
    ...(codings.length > 0 ? { vary: 'Accept-Encoding' } : {}),
    ...(coding === 'identity' ? {} : { 'content-encoding': coding }),
  };
  return documentAnswer(SCRIPT, await body(coding), headers);
}

/**
 * The page at `/docs/api`, titled after the service, with Scalar's bundle and the init script as its
 * assets, for `discoveryDocuments({ docsPage: apiReferencePage })`. The bundle is read from disk only
 * when a browser asks for it, and kept (in each coding asked for) from then on.
 */
export const apiReferencePage: DocsPage = ({ serviceName, basePath }) => {
  const init = Buffer.from(INIT_SCRIPT);
  const initHash = contentHash(init);
  const bundleHash = hashOfBundle();
  const initPath = `${API_REFERENCE_PATH}/init.${initHash}.js`;
  const bundlePath = `${API_REFERENCE_PATH}/scalar.${bundleHash}.js`;
  // Paths below the mount path, so the page loads its scripts from wherever the service is mounted.
  const html = page(`${serviceName} API reference`, `${basePath}/openapi.json`, [basePath + initPath, basePath + bundlePath]);
  return {
    page: {
      path: API_REFERENCE_PATH,
      // Revalidated on every visit (a 304 when unchanged), so it always names the current scripts.
      render: () => documentAnswer('text/html; charset=utf-8', html, { 'content-security-policy': CONTENT_SECURITY_POLICY, 'cache-control': 'no-cache' }),
    },
    assets: [
      { path: bundlePath, render: (request) => scriptAnswer(request, bundleHash, bundleIn, CODINGS) },
      { path: initPath, render: (request) => scriptAnswer(request, initHash, () => init, []) },
    ],
  };
};
