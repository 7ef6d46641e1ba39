/**
 * The discovery documents of the account and contact service: `/openapi.json`, `/auth.md`, the API
 * catalog, the agent skills and `GET /`, as documents for the `documents` option of `createHttpApi`
 * (`@sl-accounts/service/http`), with a docs page when one is given (`/docs/api`: `@sl-accounts/docs-page`).
 */

export { discoveryDocuments, type DiscoveryOptions } from './documents.ts';
export type { DocsPage } from './docs-page.ts';
export { PASSKEYS_PAGE_PATH, RESET_PAGE_PATH, VERIFY_PAGE_PATH, type LinkPagesOptions } from './link-pages.ts';
export { openApiDocument, openApiJson } from './openapi.ts';
export { COMPONENT_SCHEMAS, type JsonSchema } from './openapi.ts';
export { API_VERSION } from './openapi.ts';
export { routeResponses } from './openapi.ts';
export { authMarkdown } from './auth-md.ts';
export { Health as HealthSchema } from './response-schemas.ts';
export { preferredEncoding } from './negotiation.ts';
export { COMPRESS_FROM_BYTES } from './caching.ts';
