/** The MCP server of the account and contact service, as the endpoint the HTTP contract serves at `/mcp`. */
/** The endpoint: `/mcp` for `createHttpApi({ mcp })` (and as a fetch handler), and the server card documents. */
export { createMcpEndpoint, type McpEndpoint, type McpEndpointOptions } from './endpoint.ts';
/** Who is calling `/mcp`, as the host determined it (for the endpoint's `fetch`). */
export { type McpCaller } from './caller.ts';
/** The one protocol revision with JSON-RPC batches, and the most messages one batch may hold. */
export { BATCH_PROTOCOL_VERSION, MAX_BATCH_MESSAGES } from './batch.ts';
/** The MCP protocol revisions the endpoint speaks. */
export { MCP_PROTOCOL_VERSIONS } from './protocol.ts';
