/**
 * The Koa adapter: reads a Koa request into the HTTP contract, writes the contract's answer back, and
 * hands `/mcp` to the MCP endpoint's node bridge. Everything the service answers is decided by the
 * contract, so a Koa host and a node:http host answer alike.
 */
import Koa, { type Middleware } from 'koa';
import { logClientFault, type HttpApi, type Logger } from '@sl/http';
import type { McpEndpoint } from '@sl/mcp';

export interface KoaServiceOptions {
  readonly api: HttpApi;
  /** Mounted at its own path when given. */
  readonly mcp?: McpEndpoint;
}

/**
 * Middleware that answers every request with the service: API operations, documents, /mcp, and the
 * contract's own 404 and 405. Put your own routes before it.
 */
export function serviceMiddleware({ api, mcp }: KoaServiceOptions): Middleware {
  return async (ctx) => {
    // Straight from node's request and onto node's response: Koa's delegating getters and its
    // per-header `set` add nothing to a request and an answer the contract has already checked.
    const { req, res } = ctx;
    const url = req.url ?? '/';
    if (mcp?.handles(url)) {
      ctx.respond = false; // the bridge writes the response itself, streams included
      await mcp.handleNode(req, res);
      return;
    }
    const answer = await api.handle({
      method: req.method ?? 'GET',
      url,
      headers: req.headers,
      remoteAddress: req.socket.remoteAddress,
      secure: 'encrypted' in req.socket,
      body: req,
    });
    ctx.status = answer.status;
    const { headers } = answer;
    for (const name in headers) res.setHeader(name, headers[name]!);
    // Koa sends strings and Buffers as they are (and would serialise any other object as JSON).
    const { body } = answer;
    ctx.body = body === null || typeof body === 'string' || Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  };
}

/**
 * A Koa application serving only this service; errors Koa itself meets are logged, never shown: a
 * client that hung up as one short debug line, anything else as an error.
 */
export function createApp(options: KoaServiceOptions & { readonly logger: Logger }): Koa {
  const app = new Koa();
  app.silent = true;
  // A broken connection also reaches node's 'clientError', which the server logs at info.
  app.on('error', (err: unknown) => logClientFault(options.logger, err, 'koa error', 'debug'));
  app.use(serviceMiddleware(options));
  return app;
}
