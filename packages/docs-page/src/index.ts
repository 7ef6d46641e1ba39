/**
 * The `/docs/api` page of the account and contact service: an HTML API reference that Scalar renders
 * from `/openapi.json` in the browser, with Scalar's bundle served from this package (no CDN), for
 * the `docsPage` option of `discoveryDocuments` (`@sl-accounts/service/discovery`).
 */

export { apiReferencePage } from './api-reference.ts';
export { API_REFERENCE_PATH } from './api-reference.ts';
