/**
 * `GET /`: where a person or a tool lands first. A browser (it prefers `text/html`) is sent to the
 * API reference; anything else gets a small JSON index of the API, its documentation and the
 * discovery documents.
 */
import { headerValue, type HttpAnswer, type HttpRequest } from '@sl-accounts/http';
import { API_CATALOG_LINK } from './api-catalog.ts';
import { API_REFERENCE_PATH } from './api-reference.ts';
import { documentAnswer } from './document-answer.ts';
import { preferredType } from './negotiation.ts';
import { API_VERSION } from './openapi.ts';

export const SERVICE_INDEX_PATH = '/';

const JSON_TYPE = 'application/json; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';

/** The index: the service, its version, and an absolute link from `base` to each path of `links`, by name. */
export function serviceIndex(base: string, serviceName: string, links: Readonly<Record<string, string>>) {
  return {
    service: serviceName,
    version: API_VERSION,
    links: Object.fromEntries(Object.entries(links).map(([name, path]) => [name, `${base}${path}`])),
  };
}

/**
 * The answer to `GET /`: a redirect to the reference for a client that prefers HTML (a browser),
 * else the index of `links`. Both vary with `Accept`.
 */
export function serviceIndexAnswer(request: HttpRequest, base: string, serviceName: string, links: Readonly<Record<string, string>>, basePath = ''): HttpAnswer {
  const type = preferredType(headerValue(request.headers, 'accept'), [JSON_TYPE.split(';')[0]!, 'text/html']);
  if (type === 'text/html') {
    // A relative target: the redirect does not depend on the Host header.
    const target = `${basePath}${API_REFERENCE_PATH}`;
    const html = `<!doctype html>\n<title>${serviceName}</title>\n<p>The API reference is at <a href="${target}">${target}</a>.</p>\n`;
    return { status: 302, headers: { 'content-type': HTML_TYPE, location: target, vary: 'Accept' }, body: html };
  }
  return documentAnswer(JSON_TYPE, JSON.stringify(serviceIndex(base, serviceName, links)), { vary: 'Accept', link: API_CATALOG_LINK });
}
