/**
 * The HTTP contract of the account and contact service, framework-free: give `createHttpApi` the
 * core's use cases and hand its `handle` each request; write back the answer. Also the pieces other
 * transports and hosts share (body rules, client address, request ids, logging shape). The discovery
 * documents (`@sl-accounts/discovery`) and the docs page (`@sl-accounts/docs-page`) are served
 * through the `documents` option.
 */
/** The contract as one function of a request, its options, and what it gives a host. */
export { createHttpApi, type HttpApi, type HttpApiOptions } from './api.ts';
/** `BASE_PATH` as the contract reads it: `/accounts/` and `accounts` are `/accounts`; refuses what is not a path. */
export { normaliseBasePath } from './api.ts';
/** A matcher for a route path with `{name}` segments (to label or route by the table's paths). */
export { pathPattern } from './path-table.ts';
/** The endpoint the contract serves at `<basePath>/mcp` (`createMcpEndpoint` of `@sl-accounts/mcp` fits), and what it is told of each request. */
export { type McpContext, type McpHandler } from './mcp-handler.ts';
/** What a host's guard asks of the signed-in user (`api.authorize`), and what it gets back. */
export { type Authorization, type AuthorizeOptions } from './authorize.ts';
/** A read-only resource the contract serves beside the operations (the `documents` option). */
export { type DocumentRoute } from './document-route.ts';
/** What a host adapter mounts: `createService(...)` of `@sl-accounts/service`, or `{ api }` composed by hand. */
export { type HttpService } from './api.ts';
/** The shapes a host exchanges with the contract: the request as plain data, and the answer. */
export { type HostBody, type HttpAnswer, type HttpHeaders, type HttpRequest } from './http-types.ts';
/** The path of a request target, without query or fragment (absolute form too). */
export { requestPath } from './http-types.ts';
/** Whether an answer's body is a stream to pipe out (`/mcp`'s event streams), rather than bytes or text. */
export { isStreamBody } from './http-types.ts';
/** The first value of a header. */
export { headerValue } from './http-types.ts';
/** The largest request body the contract reads, after decompression (bytes). */
export { BODY_LIMIT_BYTES } from './body.ts';
/** Reads a JSON request body by the contract's rules (type, size, encoding), for a host's own parser. */
export { readJsonBody } from './body.ts';
/** Whether a Content-Type is JSON: `application/json` or any `+json` type. */
export { isJsonMediaType } from './body.ts';
/** Whether an error a host met before the service ran is its body parser's (hand it over as `hostBody: { failed }`). */
export { isHostBodyError } from './body.ts';
/** The client's address: the socket peer, or the trusted proxies' `X-Forwarded-For` entry. */
export { clientAddress } from './client-address.ts';
/** The absolute base URL of documents: `publicUrl`, else the request's checked origin. */
export { baseUrlOf } from './base-url.ts';
/** Logs a client's broken connection (a hang-up, a parser error) at a quiet level, anything else as an error. */
export { logClientFault } from './client-fault.ts';
/** The status of every domain error's `code` (the one table the contract answers by). */
export { STATUS_BY_CODE } from './errors.ts';
/** A client error the transport found (body rules, routing): a status and a message safe to show. */
export { HttpError } from './errors.ts';
/** The spec's ErrorResponse answer with a status and a message. */
export { errorResponse, type ErrorBody } from './errors.ts';
/** The logger shape the contract writes to (pino fits), and one that discards everything. */
export { silentLogger, type Logger } from './logger.ts';
/** Writes the one log line per request. */
export { logRequest } from './logger.ts';
/** The request's id: a trusted proxy's `X-Request-Id`, else a fresh one. */
export { requestIdOf } from './logger.ts';
/** A fresh request id, unique per process (for answers a host gives before the contract sees the request). */
export { nextRequestId } from './logger.ts';
/** The route table: every operation, its path, method, limits, body and documented responses. */
export { API_ROUTES, type ApiRoute, type DocumentedResponse } from './routes.ts';
/** A `{name}` segment of a route's path, with its description and example; the zod schema of a request body. */
export type { PathParameter, RequestSchema } from './routes.ts';
/** The `sl_session` cookie: its name, and the Set-Cookie values that set and clear it. */
export { SESSION_COOKIE, clearedSessionCookie, sessionCookie } from './session-cookie.ts';
/** The `sl_device` cookie (a device's proof of an earlier login): its name and Set-Cookie value. */
export { DEVICE_COOKIE, deviceCookie } from './session-cookie.ts';
