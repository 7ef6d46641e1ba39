/**
 * The discovery documents of the account and contact service: `/openapi.json`, `/auth.md`, the API
 * catalog, the agent skills, `GET /` and the `/docs/api` page (Scalar, served from this package), as
 * documents for the `documents` option of `createHttpApi` (@sl-accounts/http).
 */
/** Every discovery document, for `createHttpApi({ documents: discoveryDocuments({ ... }) })`. */
export { discoveryDocuments, type DiscoveryOptions } from './documents.ts';
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
