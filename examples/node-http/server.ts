/**
 * The whole service (API, discovery documents, /mcp) on plain node:http, with no framework: the proof
 * that the core and its HTTP contract embed in any Node host. It reads the same environment as
 * `pnpm start`:
 *
 *   STORE=memory TRUST_PROXY=1 node examples/node-http/server.ts
 *
 * To embed in another framework, do what `nodeHost` does: hand the request to `api.handle` as plain
 * data, write the answer's status, headers and body back, and give `/mcp` to the MCP endpoint.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { runMain, type Host } from '@sl/server';

export const nodeHost: Host = ({ api, mcp, logger }): RequestListener => {
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    if (mcp.handles(url)) return mcp.handleNode(req, res);
    const answer = await api.handle({
      method: req.method ?? 'GET',
      url,
      headers: req.headers,
      remoteAddress: req.socket.remoteAddress,
      secure: 'encrypted' in req.socket,
      body: req,
    });
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body); // node leaves the body out of HEAD answers itself
  }
  return (req, res) => {
    serve(req, res).catch((err: unknown) => {
      // The contract answers every failure itself; this only catches a host bug.
      logger.error({ err }, 'node host failed');
      if (!res.headersSent) res.writeHead(500).end();
    });
  };
};

if (import.meta.main) await runMain(nodeHost);
