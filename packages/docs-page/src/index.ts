/**
 * The `/docs/api` page of the account and contact service: an HTML API reference that Scalar renders
 * from `/openapi.json` in the browser, with Scalar's bundle served from this package (no CDN), for
 * the `docsPage` option of `discoveryDocuments` (@sl-accounts/discovery).
 */
/** The `/docs/api` page and its scripts, for `discoveryDocuments({ docsPage: apiReferencePage })`. */
export { apiReferencePage } from './api-reference.ts';
/** The page's path under the service's base path (`/docs/api`), for links to it such as the MCP card's `websitePath`. */
export { API_REFERENCE_PATH } from './api-reference.ts';
