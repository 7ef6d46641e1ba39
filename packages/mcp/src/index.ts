/** The MCP server of the account and contact service, as a handler any host mounts at `/mcp`. */
export { createMcpEndpoint, type McpCaller, type McpEndpoint, type McpEndpointOptions } from './endpoint.ts';
export { BATCH_PROTOCOL_VERSION, MAX_BATCH_MESSAGES } from './batch.ts';
export { MCP_PATH, MCP_PROTOCOL_VERSIONS } from './protocol.ts';
export { SERVER_CARD_PATHS, serverCard } from './server-card.ts';
