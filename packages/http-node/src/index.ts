/** The HTTP contract on node:http: node requests in, answers out, and a server fit to face the internet. */
/** The contract's `HttpRequest` from a node request (every node-based host builds it with this). */
export { toHttpRequest } from './convert.ts';
/** Writes the contract's `HttpAnswer` onto a node response as it is (a streamed body piped). */
export { sendAnswer } from './convert.ts';
/** The whole service as a request listener and a Connect-style `(req, res, next)` middleware (Express, NestJS). */
export { accounts } from './middleware.ts';
/** The guard of a host's own routes: the signed-in user on `req.user`, or the contract's answer. */
export { requireSession } from './middleware.ts';
/** The error middleware that answers a body parser's failure on the service's paths the contract's way. */
export { bodyErrors } from './middleware.ts';
/** node's request as Connect-style hosts leave it, and their `next`. */
export type { ConnectRequest, Next } from './middleware.ts';
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
/** The prefix a router matched, from the pattern it reports (`/t/:tenant`) and the request's path. */
export { matchedPrefix } from './prefix.ts';
