/**
 * The whole service (API, discovery documents, /mcp) on plain node:http, with no framework, beside
 * the app's own `GET /hello` and the guarded `GET /hello/me`: the proof that the core and its HTTP
 * contract embed in any Node host. It reads the same environment as `pnpm start`:
 *
 *   STORE=memory TRUST_PROXY=1 BASE_PATH=/accounts node examples/node-http/server.ts
 *
 * `nodeListener` (@sl-accounts/http-node) is the service as a request listener: it hands each
 * request to `api.handle` as plain data (`toHttpRequest`), writes the answer back (`sendAnswer`), and
 * gives `/mcp` to the MCP endpoint. `runMain` runs it on a hardened node:http server
 * (`createNodeServer`); on the memory store no Postgres module is loaded.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { requestPath, type HttpApi } from '@sl-accounts/http';
import { nodeListener, sendAnswer } from '@sl-accounts/http-node';
import { runMain, type ListenerFactory } from '@sl-accounts/server';

const json = (body: unknown) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The guarded route: the signed-in user, or the contract's 401 ErrorResponse. */
async function helloMe(api: HttpApi, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const user = await api.session(req);
  sendAnswer(res, user ? json({ ok: true, hello: user.email }) : api.unauthenticated(req));
}

export const nodeHost: ListenerFactory = ({ api, mcp, logger }): RequestListener => {
  const service = nodeListener({ api, mcp, logger });
  return (req, res) => {
    const url = req.url ?? '/';
    // The service's own paths first; of the rest, the app's routes, and for anything else the contract's 404.
    if (api.owns(url) || mcp.handles(url) || req.method !== 'GET') return service(req, res);
    const path = requestPath(url);
    if (path === '/hello') return sendAnswer(res, json({ ok: true, hello: 'world' }));
    if (path !== '/hello/me') return service(req, res);
    helloMe(api, req, res).catch((err: unknown) => {
      // A store failure in the guard: the contract's answer to it (503), as the service's own routes give.
      logger.error({ err }, 'node host failed');
      if (!res.headersSent) sendAnswer(res, api.answerError(err, req));
    });
  };
};

if (import.meta.main) await runMain(nodeHost);
