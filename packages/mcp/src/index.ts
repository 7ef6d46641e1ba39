/** The MCP server of the account and contact service, as the endpoint the HTTP contract serves at `/mcp`. */

export { createMcpEndpoint, type McpEndpoint, type McpEndpointOptions } from './endpoint.ts';
export { type McpCaller } from './caller.ts';
export { BATCH_PROTOCOL_VERSION, MAX_BATCH_MESSAGES } from './batch.ts';
export { MCP_PROTOCOL_VERSIONS } from './protocol.ts';
