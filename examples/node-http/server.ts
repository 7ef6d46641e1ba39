/**
 * The whole service (API, discovery documents, /mcp) on plain node:http, with no framework, beside
 * the app's own `GET /hello` and the guarded `GET /hello/me`: `accounts(service)` is a request
 * listener and a `(req, res, next)` middleware at once. It reads the same environment as
 * `pnpm start`:
 *
 *   STORE=memory TRUST_PROXY=1 BASE_PATH=/accounts node examples/node-http/server.ts
 */
import type { RequestListener, ServerResponse } from 'node:http';
import { accounts, requireSession, type ConnectRequest } from '@sl-accounts/service/http-node';
import { runMain, type ListenerFactory } from '@sl-accounts/server';

const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

export const nodeHost: ListenerFactory = (service): RequestListener => {
  const serve = accounts(service);
  const guard = requireSession(service);
  return (req: ConnectRequest, res) =>
    // The service's paths first; then the app's own routes; anything else gets the contract's 404.
    serve(req, res, () => {
      if (req.method === 'GET' && req.url === '/hello') return json(res, { ok: true, hello: 'world' });
      if (req.method === 'GET' && req.url === '/hello/me') return guard(req, res, () => json(res, { ok: true, hello: req.user!.email }));
      serve(req, res);
    });
};

if (import.meta.main) await runMain(nodeHost);
