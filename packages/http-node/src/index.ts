/** The HTTP contract on node:http: node requests in, answers out, and a server fit to face the internet. */
/** The contract's `HttpRequest` from a node request (every node-based host builds it with this). */
export { toHttpRequest } from './convert.ts';
/** Writes the contract's `HttpAnswer` onto a node response as it is. */
export { sendAnswer } from './convert.ts';
/** The whole service (the contract and `/mcp`) as one node:http request listener. */
export { nodeListener, type NodeMcpEndpoint, type NodeServiceOptions } from './listener.ts';
/** `http.createServer`, hardened, with a graceful stop. */
export { createNodeServer, type NodeServer, type NodeServerOptions } from './server.ts';
/** Hardens a node:http server made elsewhere (timeouts, connection caps, slow readers, client errors). */
export { hardenServer } from './server.ts';
/** What one client may hold of the server: timeouts and connection caps. */
export type { HttpLimits } from './limits.ts';
/** The timeouts as node:http's server options (checked every second, not every 30 s), for a server made elsewhere. */
export { serverOptions } from './limits.ts';
/** Runs libuv's thread pool (where passwords are hashed) below the event loop's CPU priority, on Linux. */
export { deprioritizeThreadPool } from './thread-priority.ts';
