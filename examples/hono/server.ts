/**
 * The service inside a Hono app on Node (@hono/node-server), written the way Hono apps are: the
 * app's own routes, the service's routes mounted with `app.route()` under `BASE_PATH` (or the root),
 * and a middleware guard that sets `c.set('user', …)` for the app's own `GET /hello/me`. Hono reads
 * no body unless asked, so the contract reads it from node's request under its own rules. It reads
 * the same environment as `pnpm start`:
 *
 *   STORE=memory BASE_PATH=/accounts node examples/hono/server.ts
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { User } from '@sl-accounts/core';
import type { HttpAnswer, HttpApi } from '@sl-accounts/http';
import { toHttpRequest } from '@sl-accounts/http-node';
import { runMain, type ListenerFactory, type Service } from '@sl-accounts/server';

type Env = { Bindings: HttpBindings; Variables: { user: User } };

/** The contract's answer as a web Response (Hono drops the body of a HEAD answer itself). */
function toResponse(answer: HttpAnswer): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) for (const v of typeof value === 'string' ? [value] : value) headers.append(name, v);
  const { body } = answer;
  return new Response(body === null || typeof body === 'string' ? body : new Uint8Array(body), { status: answer.status, headers });
}

/** The service's routes: every path of the contract (at the root), or everything inside the base path. */
function accountsRoutes({ api, mcp }: Pick<Service, 'api' | 'mcp'>): Hono<Env> {
  const routes = new Hono<Env>({ strict: true });
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<Response> => {
    // `req.url` is the target as received, base path included.
    const url = req.url ?? '/';
    if (mcp.handles(url)) {
      // The bridge streams the MCP SDK's answer (event streams included) onto node's response.
      await mcp.handleNode(req, res);
      return RESPONSE_ALREADY_SENT;
    }
    return toResponse(await api.handle(toHttpRequest(req, undefined, url)));
  };
  const paths = api.basePath ? ['/', '/*'] : [...api.mountPaths, mcp.path];
  for (const path of paths) routes.all(path, (c) => serve(c.env.incoming, c.env.outgoing));
  return routes;
}

/** The guard: `c.get('user')`, or the contract's 401 ErrorResponse. */
function requireSession(api: HttpApi): MiddlewareHandler<Env> {
  return async (c, next) => {
    const user = await api.session(c.env.incoming);
    if (!user) return toResponse(api.unauthenticated(c.env.incoming));
    c.set('user', user);
    await next();
  };
}

export const honoHost: ListenerFactory = ({ api, mcp, logger }) => {
  const app = new Hono<Env>({ strict: true });
  app.get('/hello', (c) => c.json({ ok: true, hello: 'world' }));
  app.get('/hello/me', requireSession(api), (c) => c.json({ ok: true, hello: c.get('user').email }));
  const accounts = accountsRoutes({ api, mcp });
  app.route(api.basePath || '/', accounts);
  // Under a base path, the /.well-known/ documents still belong at the origin's root.
  if (api.basePath) app.all('/.well-known/*', (c) => (api.owns(c.env.incoming.url ?? '/') ? accounts.fetch(c.req.raw, c.env) : c.notFound()));
  app.onError((err, c) => {
    const { status, expose, message } = err as { status?: number; expose?: boolean; message: string };
    if (typeof status !== 'number' || status >= 500) logger.error({ err }, 'app error');
    const code = typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
    return c.json({ ok: false, error: expose ? message : 'Internal server error' }, code as 400);
  });
  return getRequestListener(app.fetch);
};

if (import.meta.main) await runMain(honoHost);
