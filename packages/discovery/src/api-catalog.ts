/**
 * `/.well-known/api-catalog` (RFC 9727): a linkset (RFC 9264) that points at the API's description,
 * documentation (when there is a docs page) and status.
 */

export const API_CATALOG_PATH = '/.well-known/api-catalog';
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
/** Sent on GET and HEAD, so a HEAD alone tells a client where the catalog is. */
export const API_CATALOG_LINK = `<${API_CATALOG_PATH}>; rel="api-catalog"`;

/** The catalog from `base`; `docsPath` is the docs page's path below it, absent when there is none. */
export function apiCatalog(base: string, docsPath?: string) {
  return {
    linkset: [
      {
        anchor: `${base}/api`,
        'service-desc': [{ href: `${base}/openapi.json`, type: 'application/openapi+json' }],
        ...(docsPath === undefined ? {} : { 'service-doc': [{ href: `${base}${docsPath}`, type: 'text/html' }] }),
        status: [{ href: `${base}/api/health`, type: 'application/json' }],
      },
    ],
  };
}
