/**
 * The HTTP contract of the account and contact service, framework-free: give `createHttpApi` the
 * core's use cases and hand its `handle` each request; write back the answer. Also the pieces other
 * transports share (body rules, client address, logging shape) and the discovery documents.
 */
export { createHttpApi, normaliseBasePath, pathPattern, type HttpApi, type HttpApiOptions } from './api.ts';
export { BODY_LIMIT_BYTES, hostBodyError, isHostBodyError, isJsonMediaType, readJsonBody } from './body.ts';
export { clientAddress } from './client-address.ts';
export { isCrossSite } from './cross-site.ts';
export { clientFaultCode, isClientFault, logClientFault } from './client-fault.ts';
export { STATUS_BY_CODE, HttpError, errorAnswer, type ErrorBody } from './errors.ts';
export { headerValue, jsonAnswer, requestPath, type HostBody, type HttpAnswer, type HttpHeaders, type HttpRequest } from './http-types.ts';
export { logRequest, nextRequestId, requestIdOf, silentLogger, type Logger, type RequestRecord } from './logger.ts';
export { API_ROUTES, type ApiRoute, type DocumentedResponse } from './routes.ts';
export { SESSION_COOKIE, clearedSessionCookie, sessionCookie } from './session-cookie.ts';
export { authMarkdown } from './discovery/auth-md.ts';
export { baseUrlOf, checkedHost, requestOrigin, type RequestOrigin } from './discovery/base-url.ts';
export { DOCUMENT_CACHE_CONTROL, IMMUTABLE_CACHE_CONTROL } from './discovery/caching.ts';
export { documentAnswer, type DocumentRoute } from './discovery/documents.ts';
export { EXAMPLE_CONTACT, EXAMPLE_LOGIN, EXAMPLE_SIGNUP } from './discovery/examples.ts';
export { preferredEncoding, preferredType } from './discovery/negotiation.ts';
export { API_VERSION, COMPONENT_SCHEMAS, openApiDocument, routeResponses, type JsonSchema } from './discovery/openapi.ts';
export { Health as HealthSchema } from './discovery/response-schemas.ts';
