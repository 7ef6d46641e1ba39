/**
 * `GET /`: where a person or a tool lands first. A browser (it prefers `text/html`) is sent to the
 * docs page when there is one; anything else, and every client when there is none, gets a small
 * JSON index of the API, its documentation and the discovery documents.
 */
import { headerValue, type HttpAnswer, type HttpRequest } from '@sl-accounts/service/http';
import { API_CATALOG_LINK } from './api-catalog.ts';
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
 * The answer to `GET /`: a redirect to the docs page at `docsTarget` (its path, mount path
 * included) for a client that prefers HTML (a browser), else the index of `links`; both vary with
 * `Accept`. Without a docs page, the index for every client, which then varies with nothing.
 */
export function serviceIndexAnswer(request: HttpRequest, base: string, serviceName: string, links: Readonly<Record<string, string>>, docsTarget: string | undefined): HttpAnswer {
  const index = () => JSON.stringify(serviceIndex(base, serviceName, links));
  if (docsTarget === undefined) return documentAnswer(JSON_TYPE, index(), { link: API_CATALOG_LINK });
  const type = preferredType(headerValue(request.headers, 'accept'), [JSON_TYPE.split(';')[0]!, 'text/html']);
  if (type === 'text/html') {
    // A relative target: the redirect does not depend on the Host header.
    const html = `<!doctype html>\n<title>${serviceName}</title>\n<p>The API reference is at <a href="${docsTarget}">${docsTarget}</a>.</p>\n`;
    return { status: 302, headers: { 'content-type': HTML_TYPE, location: docsTarget, vary: 'Accept' }, body: html };
  }
  return documentAnswer(JSON_TYPE, index(), { vary: 'Accept', link: API_CATALOG_LINK });
}
