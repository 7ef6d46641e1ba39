/**
 * The whole service as one node:http request listener, for a server that serves nothing else (or
 * that sends the service's requests to it): `/mcp` to the MCP endpoint, everything else to the
 * contract, its own 404 included.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { silentLogger, type HttpApi, type Logger } from '@sl-accounts/http';
import { sendAnswer, toHttpRequest } from './convert.ts';

/**
 * The part of `@sl-accounts/mcp`'s endpoint the listener uses. A structural copy, so this package
 * needs no MCP SDK (an embedder without `/mcp` installs none); `createMcpEndpoint(...)` satisfies it.
 */
export interface NodeMcpEndpoint {
  handles(url: string): boolean;
  handleNode(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export interface NodeServiceOptions {
  readonly api: HttpApi;
  /** Served at its own path (`<basePath>/mcp`) when given. */
  readonly mcp?: NodeMcpEndpoint;
  /** Where a failure the contract did not answer itself is logged; default nowhere. */
  readonly logger?: Logger;
}

/**
 *   createServer(nodeListener({ api, mcp, logger })).listen(3000);
 *
 * The contract answers every failure itself; a rejection that still reaches here (a bug in a host
 * around it) is logged and answered as the contract answers an unexpected error.
 */
export function nodeListener({ api, mcp, logger = silentLogger }: NodeServiceOptions): RequestListener {
  return (req, res) => {
    const url = req.url ?? '/';
    const served = mcp?.handles(url) ? mcp.handleNode(req, res) : api.handle(toHttpRequest(req, undefined, url)).then((answer) => sendAnswer(res, answer));
    served.catch((err: unknown) => {
      logger.error({ err }, 'node host failed');
      if (!res.headersSent) sendAnswer(res, api.answerError(err, req));
    });
  };
}
