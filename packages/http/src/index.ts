/**
 * The HTTP contract of the account and contact service, framework-free: give `createHttpApi` the
 * core's use cases and hand its `handle` each request; write back the answer. Also the pieces other
 * transports and hosts share (body rules, client address, request ids, logging shape). The discovery
 * documents (`@sl-accounts/service/discovery`) and the docs page (`@sl-accounts/docs-page`) are served
 * through the `documents` option.
 */

export { createHttpApi, type HttpApi, type HttpApiOptions } from './api.ts';
export { normaliseBasePath } from './api.ts';
export { pathPattern } from './path-table.ts';
export { type McpContext, type McpHandler } from './mcp-handler.ts';
export { type Authorization, type AuthorizeOptions } from './authorize.ts';
export { type DocumentRoute } from './document-route.ts';
export { type HttpService } from './api.ts';
export { DEFAULT_BODY_TIMEOUT_MS, type FetchHandler, type FetchOptions } from './fetch.ts';
export { type HostBody, type HttpAnswer, type HttpHeaders, type HttpRequest } from './http-types.ts';
export { requestPath } from './http-types.ts';
export { isStreamBody } from './http-types.ts';
export { headerValue } from './http-types.ts';
export { BODY_LIMIT_BYTES } from './body.ts';
export { readJsonBody } from './body.ts';
export { isJsonMediaType } from './body.ts';
export { isHostBodyError } from './body.ts';
export { clientAddress } from './client-address.ts';
export { baseUrlOf } from './base-url.ts';
export { requestBase } from './request-base.ts';
export { logClientFault } from './client-fault.ts';
export { STATUS_BY_CODE } from './errors.ts';
export { HttpError } from './errors.ts';
export { errorResponse, type ErrorBody, type ErrorCode, type TransportErrorCode } from './errors.ts';
export { TRANSPORT_ERROR_STATUS } from './errors.ts';
export { silentLogger, type Logger } from './logger.ts';
export { logRequest, RequestRecord, REQUEST_MESSAGE } from './logger.ts';
export { requestIdOf } from './logger.ts';
export { nextRequestId } from './logger.ts';
export { API_ROUTES, type ApiRoute, type DocumentedResponse } from './routes/index.ts';
export type { PathParameter, RequestSchema } from './routes/index.ts';
export { SESSION_COOKIE, clearedSessionCookie, sessionCookie } from './session-cookie.ts';
export { DEVICE_COOKIE, deviceCookie } from './session-cookie.ts';
export { LOGIN_CHALLENGE_COOKIE, loginChallengeCookie, clearedLoginChallengeCookie } from './session-cookie.ts';
