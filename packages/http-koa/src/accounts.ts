/**
 * `accounts(service)`: the service as the routes of an `@koa/router` router, which a Koa app mounts
 * as it mounts any router: `app.use(accounts(service))`, or nested under a prefix,
 * `router.use('/v1', accounts(service))` (the router gives its layers the prefix, and the documents'
 * links follow it).
 */
import type { IncomingMessage } from 'node:http';
import Router, { type RouterMiddleware } from '@koa/router';
import type { Context, Next } from 'koa';
import type { HostBody, HttpApi, HttpService } from '@sl-accounts/service/http';
import { matchedPrefix, toHttpRequest } from '@sl-accounts/service/http-node';
import { send } from './send.ts';

/** Koa's request as koa-bodyparser and `@koa/bodyparser` leave it. */
interface ParsedKoaRequest {
  readonly body?: unknown;
  readonly rawBody?: unknown;
}

/**
 * The service's routes. At the root: one layer per path the service serves (its documents, `/mcp`)
 * and one for its whole API namespace (`/api/…`); under the service's `basePath`, one for everything
 * inside it and one per `/.well-known/` document at the origin's root (RFC 8615). Each layer takes
 * every method, so the contract answers 405 and 501 for its own paths; paths it does not serve
 * claim no method, so a host router's `allowedMethods()` still answers for its own. Paths match
 * exactly (case and trailing slash), as the contract's do.
 *
 * A path the service does not serve inside its namespace (an unknown `/api/…`) goes on to the app's
 * middleware first; what nothing there answered gets the contract's JSON 404. Mount it before a
 * body parser: the service reads its own bodies, under its own rules; after one, it takes what the
 * parser read (its raw text, else the parsed value), and a body the parser refused is the app's to
 * answer.
 */
export function accounts(service: HttpService): ReturnType<Router['routes']> {
  const { api } = service;
  const router = new Router({ sensitive: true, strict: true });
  const { basePath } = api;
  const layers = basePath
    ? [basePath, `${basePath}/`, `${basePath}{/*rest}`, ...api.paths.filter((p) => p.startsWith('/.well-known/'))]
    : api.mountPaths.map((path) => (path.endsWith('/*') ? `${path.slice(0, -1)}{*rest}` : path));
  for (const layer of new Set(layers)) {
    const path = toRouterPath(layer);
    const handler: RouterMiddleware = (ctx, next) => serve(api, ctx, next, mountPathOf(ctx, path));
    // The index with and without its trailing slash: under a prefix, `/v1` and `/v1/` (the contract answers both).
    if (path === '/') router.register(path, router.methods, handler, { strict: false });
    else router.all(path, handler);
  }
  return router.routes();
}

async function serve(api: HttpApi, ctx: Context, next: Next, mountPath: string | undefined): Promise<void> {
  // The target as received (`originalUrl`), whatever a mount stripped.
  const url = ctx.originalUrl;
  if (!api.serves(url, mountPath)) {
    await next();
    // Koa's "not found": no status set and no body. Anything the app answered stays.
    if (ctx.status !== 404 || ctx.body != null) return;
  }
  send(ctx, await api.handle(toHttpRequest(ctx.req, hostBodyOf(ctx), url, mountPath)));
}

/** The prefix a parent router gave this layer: the part of the layer's path (`ctx.routerPath`) before the path it was registered with. */
function mountPathOf(ctx: Context, registered: string): string | undefined {
  const full = (ctx as Context & { routerPath?: string }).routerPath;
  const own = registered === '/' ? '' : registered;
  if (!full || full === registered || !full.endsWith(own)) return undefined;
  return matchedPrefix(full.slice(0, full.length - own.length), ctx.path);
}

/** Bodies a parser before the service refused, as `deferBodyError` kept them, by request. */
const refusedBodies = new WeakMap<IncomingMessage, unknown>();

/**
 * A body parser's `onerror` (koa-bodyparser) or `onError` (`@koa/bodyparser`), for an app that
 * mounts its parser before the service:
 *
 *   app.use(bodyParser({ onerror: deferBodyError }));
 *
 * A body the parser refused then goes on to the service, which answers it under the contract (its
 * JSON ErrorResponse: the text the parser could not parse is parsed again under the contract's own
 * rules, so `null` and malformed JSON get the same 400s as when the service reads its own body; a
 * body too large is 413). The app's own routes still meet the parser's error, thrown where they
 * read `ctx.request.body`.
 */
export function deferBodyError(error: unknown, ctx: Context): void {
  refusedBodies.set(ctx.req, error);
  Object.defineProperty(ctx.request, 'body', {
    configurable: true,
    enumerable: true,
    get() {
      throw error;
    },
    set(value: unknown) {
      Object.defineProperty(ctx.request, 'body', { configurable: true, enumerable: true, writable: true, value });
    },
  });
}

/**
 * What a body parser that ran before the service made of the body: what it refused (`deferBodyError`:
 * the text it could not parse when it says, else its error), its raw text when it kept it
 * (koa-bodyparser, `@koa/bodyparser`), else the parsed value if it read the stream; `undefined` when
 * nothing read it (then the contract reads the stream itself, after counting the request).
 */
export function hostBodyOf(ctx: Context): HostBody | undefined {
  if (refusedBodies.has(ctx.req)) {
    const error = refusedBodies.get(ctx.req);
    // co-body's parse errors keep the text they could not parse; a 4xx with no text is a read that failed (too large, cut).
    const text = (error as { body?: unknown } | null)?.body;
    return typeof text === 'string' && (error as { status?: unknown }).status === 400 ? { text } : { failed: error };
  }
  if (!ctx.req.readableDidRead) return undefined;
  const { body, rawBody } = ctx.request as ParsedKoaRequest;
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) return { text: rawBody };
  return { parsed: body };
}

/** A contract path in `@koa/router`'s syntax: `{id}` is `:id`; the characters path-to-regexp reserves are escaped. */
function toRouterPath(path: string): string {
  if (path.endsWith('{*rest}') || path.endsWith('{/*rest}')) {
    const cut = path.lastIndexOf('{');
    return toRouterPath(path.slice(0, cut)) + path.slice(cut);
  }
  return path
    .split('/')
    .map((segment) => {
      const name = /^\{(\w+)\}$/.exec(segment)?.[1];
      return name === undefined ? segment.replace(/[(){}[\]?+!*:\\]/g, '\\$&') : `:${name}`;
    })
    .join('/');
}

