/**
 * The discovery documents of the account and contact service: `/openapi.json`, `/auth.md`, the API
 * catalog, the agent skills and `GET /`, as documents for the `documents` option of `createHttpApi`
 * (@sl-accounts/http), with a docs page when one is given (`/docs/api`: @sl-accounts/docs-page).
 */
/** Every discovery document, for `createHttpApi({ documents: discoveryDocuments({ ... }) })`. */
export { discoveryDocuments, type DiscoveryOptions } from './documents.ts';
/** What the `docsPage` option takes: a page for people and its assets, made for the service (`apiReferencePage` of @sl-accounts/docs-page). */
export type { DocsPage } from './docs-page.ts';
/** The OpenAPI 3.1 document of the API, with every link absolute from a base URL. */
export { openApiDocument } from './openapi.ts';
/** The JSON Schemas of the request and response bodies (the OpenAPI components), by name. */
export { COMPONENT_SCHEMAS, type JsonSchema } from './openapi.ts';
/** The version of the API contract (OpenAPI `info.version`, MCP server version). */
export { API_VERSION } from './openapi.ts';
/** A route's documented responses, its own and those that follow from its fields, by status. */
export { routeResponses } from './openapi.ts';
/** `/auth.md`: how a client signs up, in and out, as Markdown. */
export { authMarkdown } from './auth-md.ts';
/** The zod schema of the health answer (`GET /api/health`). */
export { Health as HealthSchema } from './response-schemas.ts';
