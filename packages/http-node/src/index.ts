/** The HTTP contract on node:http: node requests in, answers out, and a server fit to face the internet. */

export { toHttpRequest } from './convert.ts';
export { sendAnswer } from './convert.ts';
export { accounts } from './middleware.ts';
export { requireSession } from './middleware.ts';
export { bodyErrors } from './middleware.ts';
export type { ConnectRequest, Next } from './middleware.ts';
export { createNodeServer, type NodeServer, type NodeServerOptions } from './server.ts';
export { hardenServer } from './server.ts';
export type { HttpLimits } from './limits.ts';
export { serverOptions } from './limits.ts';
export { deprioritizeThreadPool } from './thread-priority.ts';
export { matchedPrefix } from './prefix.ts';
