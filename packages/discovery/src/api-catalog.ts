/**
 * `/.well-known/api-catalog` (RFC 9727): a linkset (RFC 9264) that points at the API's description,
 * documentation and status.
 */

export const API_CATALOG_PATH = '/.well-known/api-catalog';
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
/** Sent on GET and HEAD, so a HEAD alone tells a client where the catalog is. */
export const API_CATALOG_LINK = `<${API_CATALOG_PATH}>; rel="api-catalog"`;

export function apiCatalog(base: string) {
  return {
    linkset: [
      {
        anchor: `${base}/api`,
        'service-desc': [{ href: `${base}/openapi.json`, type: 'application/openapi+json' }],
        'service-doc': [{ href: `${base}/docs/api`, type: 'text/html' }],
        status: [{ href: `${base}/api/health`, type: 'application/json' }],
      },
    ],
  };
}
