/**
 * `accounts(service)`: the service as a Hono app, for `app.route(prefix, ...)` (or, on Node,
 * `app.mount(prefix, ....fetch)`), on any runtime. On Node with `@hono/node-server` the contract reads
 * node's own request (`c.env.incoming`); elsewhere (Bun, Deno, workers) it answers Hono's web
 * `Request` through the service's fetch handler (`api.fetch`), with the client's address from the
 * runtime's bindings. Either way it reads the body under its own rules, after the rate limit counted
 * the request.
 */
import type { IncomingMessage } from 'node:http';
import { Hono, type Context } from 'hono';
import { basePath as routeBasePath } from 'hono/route';
import { requestPath, type HttpApi, type HttpService } from '@sl-accounts/service/http';
import { toHttpRequest } from '@sl-accounts/service/http-node';
import { toResponse } from './response.ts';

/**
 * The bindings the adapter reads, whichever the runtime passes: node's request (`@hono/node-server`),
 * Bun's server (`Bun.serve({ fetch: app.fetch })` passes it as the env), Deno's connection info
 * (`Deno.serve(app.fetch)`).
 */
export interface AccountsEnv {
  Bindings: {
    incoming?: IncomingMessage;
    requestIP?: (request: Request) => { address: string } | null;
    remoteAddr?: { hostname?: string };
  };
}

/**
 * The service's routes, every method: at the root its documents, `/mcp` and its API namespace
 * (`/api/*`); under the service's `basePath` everything inside it and the `/.well-known/` documents
 * at the origin's root (RFC 8615). Wherever the app routes it, the service answers under that
 * prefix, and its links and documents say so.
 */
export function accounts(service: HttpService): Hono<AccountsEnv> {
  const { api } = service;
  const app = new Hono<AccountsEnv>({ strict: true });
  const { basePath } = api;
  const paths = basePath ? [basePath, `${basePath}/*`, ...api.paths.filter((p) => p.startsWith('/.well-known/'))] : api.mountPaths;
  for (const path of new Set(paths)) app.all(toRoutePath(path), (c) => serve(api, c));
  if (paths.includes('/')) {
    // `app.route('/svc', ...)` makes this app's `/` the route `/svc` (Hono's mergePath drops the
    // slash), and strict routing then has nothing for `/svc/`, which every other adapter answers as
    // `/svc`. Only that one path: the app's own routes under the prefix stay theirs.
    app.use('*', async (c, next) => {
      const prefix = routeBasePath(c);
      if (prefix !== '' && prefix !== '/' && c.req.path === `${prefix}/`) return serve(api, c);
      await next();
    });
  }
  return app;
}

async function serve(api: HttpApi, c: Context<AccountsEnv>): Promise<Response> {
  const incoming = c.env?.incoming;
  if (!incoming) return api.fetch(c.req.raw, { clientAddress: clientAddressOf(c), mountPath: routeBasePath(c) || undefined });
  // `incoming.url` is the target as received; what `app.mount` stripped from Hono's own path and
  // what `app.route` put in front of this app's routes make the prefix the service answers under.
  const url = incoming.url ?? '/';
  const full = requestPath(url);
  const stripped = full.endsWith(c.req.path) ? full.slice(0, full.length - c.req.path.length) : '';
  const mountPath = stripped + routeBasePath(c);
  return toResponse(await api.handle(toHttpRequest(incoming, undefined, url, mountPath || undefined)));
}

/**
 * The client's address on a runtime other than Node: what Bun's server (`requestIP`) or Deno's
 * connection info (`remoteAddr`) says, as Hono's own `getConnInfo` of `hono/bun` and `hono/deno`
 * reads them; those helpers are one per runtime, and this adapter serves every runtime from one
 * import. Elsewhere none: every request is one unknown client, with one budget.
 */
function clientAddressOf(c: Context<AccountsEnv>): string | undefined {
  const env = c.env as AccountsEnv['Bindings'] | undefined;
  if (typeof env?.requestIP === 'function') return env.requestIP(c.req.raw)?.address;
  return env?.remoteAddr?.hostname;
}

/** A contract path in Hono's syntax: `{id}` is `:id`. */
function toRoutePath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
