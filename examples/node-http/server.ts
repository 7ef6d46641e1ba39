/**
 * The whole service (API, discovery documents, /mcp) on plain node:http, with no framework, beside
 * the app's own `GET /hello` and the guarded `GET /hello/me`: the proof that the core and its HTTP
 * contract embed in any Node host. It reads the same environment as `pnpm start`:
 *
 *   STORE=memory TRUST_PROXY=1 BASE_PATH=/accounts node examples/node-http/server.ts
 *
 * To embed in another framework, do what `nodeHost` does: hand the request to `api.handle` as plain
 * data, write the answer's status, headers and body back, and give `/mcp` to the MCP endpoint.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { requestPath, type HttpAnswer } from '@sl-accounts/http';
import { runMain, type Host } from '@sl-accounts/server';

function send(res: ServerResponse, answer: HttpAnswer): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body); // node leaves the body out of HEAD answers itself
}

export const nodeHost: Host = ({ api, mcp, logger }): RequestListener => {
  /** The app's own routes: whatever the service does not own. */
  async function own(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = requestPath(req.url ?? '/');
    if (req.method === 'GET' && path === '/hello') return send(res, { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ok: true, hello: 'world' }) });
    if (req.method === 'GET' && path === '/hello/me') {
      const user = await api.session(req);
      if (!user) return send(res, api.unauthenticated(req));
      return send(res, { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ok: true, hello: user.email }) });
    }
    // Everything else is the contract's, its 404 included.
    return serve(req, res);
  }

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
    send(res, answer);
  }
  return (req, res) => {
    const url = req.url ?? '/';
    (api.owns(url) || mcp.handles(url) ? serve(req, res) : own(req, res)).catch((err: unknown) => {
      // The contract answers every failure itself; this catches a host bug, or a store failure in the guard.
      logger.error({ err }, 'node host failed');
      if (!res.headersSent) send(res, api.answerError(err, req));
    });
  };
};

if (import.meta.main) await runMain(nodeHost);
