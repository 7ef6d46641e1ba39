/**
 * `/docs/api`: an HTML reference that Scalar renders from /openapi.json in the browser. The Scalar
 * bundle is served from this package's own dependency, so the page needs no CDN and works offline.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { headerValue, type HttpAnswer, type HttpRequest } from '../http-types.ts';
import { documentAnswer, type DocumentRoute } from './documents.ts';

export const API_REFERENCE_PATH = '/docs/api';
const BUNDLE_PATH = `${API_REFERENCE_PATH}/scalar.js`;
const INIT_PATH = `${API_REFERENCE_PATH}/init.js`;

/** Scalar's self-contained browser build (scripts and styles in one file). */
const BUNDLE_URL = new URL('./browser/standalone.js', import.meta.resolve('@scalar/api-reference'));

// Runs before the bundle. Zod inside Scalar probes for eval (`Function('')`), which the policy
// forbids; jitless mode skips the probe. Every option that would reach another origin is off: web
// fonts, telemetry, the AI agent, the MCP promotion. The API client stays, and talks to this origin.
const INIT_SCRIPT = `globalThis.__zod_globalConfig = { jitless: true };
document.addEventListener('DOMContentLoaded', () => Scalar.createApiReference('#app', ${JSON.stringify({
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  defaultOpenAllTags: true,
})}));
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

const page = (title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title}</title>
</head>
<body>
<div id="app"></div>
<script src="${INIT_PATH}"></script>
<script src="${BUNDLE_PATH}"></script>
</body>
</html>
`;

interface Asset {
  readonly body: Buffer;
  readonly etag: string;
}

const asset = (body: Buffer): Asset => ({ body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });

/** Whether the client's If-None-Match names this entity tag (weak comparison, RFC 9110 13.1.2). */
function fresh(request: HttpRequest, etag: string): boolean {
  const match = headerValue(request.headers, 'if-none-match');
  if (!match) return false;
  if (match.trim() === '*') return true;
  return match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

function assetAnswer(request: HttpRequest, asset: Asset, type: string): HttpAnswer {
  const headers = { etag: asset.etag, 'cache-control': 'public, max-age=3600' };
  if (fresh(request, asset.etag)) return { status: 304, headers, body: null };
  return documentAnswer(type, asset.body, headers);
}

const SCRIPT = 'text/javascript; charset=utf-8';

/** The page, Scalar's bundle (read on first use: 4 MB that only a browser visiting the docs needs) and the init script. */
export function apiReferenceDocuments(serviceName: string): DocumentRoute[] {
  let bundle: Promise<Asset> | undefined;
  const init = asset(Buffer.from(INIT_SCRIPT));
  const html = page(`${serviceName} API reference`);
  return [
    {
      path: API_REFERENCE_PATH,
      render: () => documentAnswer('text/html; charset=utf-8', html, { 'content-security-policy': CONTENT_SECURITY_POLICY }),
    },
    {
      path: BUNDLE_PATH,
      render: async (request) => {
        bundle ??= readFile(BUNDLE_URL).then(asset, (error: unknown) => {
          bundle = undefined;
          throw error;
        });
        return assetAnswer(request, await bundle, SCRIPT);
      },
    },
    { path: INIT_PATH, render: (request) => assetAnswer(request, init, SCRIPT) },
  ];
}
