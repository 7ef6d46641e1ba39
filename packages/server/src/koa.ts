/**
 * `pnpm start`'s application: a Koa 3 app with an `@koa/router` router, which an operator extends the
 * Koa way in a file of their own (docs/decisions/0050-koa-server.md; examples/koa/start.ts is one,
 * with `bodyParser` from koa-bodyparser, which the operator's app installs, not this package):
 *
 *   await run(({ app, router }) => {
 *     app.use(bodyParser());
 *     router.post('/hello', (ctx) => { ctx.body = { ok: true, hello: ctx.request.body }; });
 *   });
 *
 * `pnpm start` is `run()` with nothing added.
 */
import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import { logClientFault } from '@sl-accounts/service/http';
import { serviceMiddleware } from '@sl-accounts/http-koa';
import { runMain } from './run.ts';
import type { ListenerFactory, Service } from './serve.ts';

/** What an extension receives, before the server listens. */
export interface KoaServer {
  /**
   * The application. The service's middleware (`accounts`) is its first unless the extension
   * `app.use`s it somewhere itself: the service's paths are answered there, and everything else goes
   * on to what the extension adds; a path nothing answered gets the contract's JSON 404. (Before all
   * of them, one middleware holds each answer for the event loop's check phase: `answerAfterReads`.)
   */
  readonly app: Koa;
  /** The operator's routes, mounted (with `allowedMethods()`) after all the extension's `app.use`. */
  readonly router: Router;
  /** The composed service: `requireSession(service)` of `@sl-accounts/http-koa` guards a route with it. */
  readonly service: Service;
  /**
   * The service's one middleware, for an extension that wants middleware of its own before it (a
   * request log; a body parser with `onerror: deferBodyError`): `app.use(mine); app.use(accounts)`.
   */
  readonly accounts: Middleware;
}

/** Adds the operator's middleware and routes; runs once, before the server listens. */
export type KoaExtension = (server: KoaServer) => void;

/**
 * The app's first middleware: the answer leaves in the event loop's check phase, once the poll phase
 * has read every request that was ready, instead of as soon as it is made (docs/decisions/0061-answers-after-reads.md).
 * Under concurrent load the writes then go out together and each event loop turn handles more
 * requests: at 50 connections `/api/health` took 65 µs of CPU a request against 102, `/api/me` 81
 * against 99, at the same p99; at one connection nothing changed (2026-12-07, memory store,
 * interleaved rounds on this 2-core machine).
 */
const answerAfterReads: Middleware = async (_ctx, next) => {
  await next();
  await new Promise<void>((resolve) => setImmediate(resolve));
};

/**
 * The Koa app of `pnpm start` as a request listener for `startServer`, `extend` having added its
 * middleware and routes. The service's requests pass through Koa and the one middleware, no router:
 * a router in front of the service would send every request to the same place at a fifth of
 * `/api/health`'s throughput (test/bench/ab.ts). An empty router is not mounted at all.
 */
export function koaServer(extend?: KoaExtension): ListenerFactory {
  return (service) => {
    const app = new Koa();
    // Errors are logged, never shown: a client that hung up as one short debug line, anything else as an error.
    app.silent = true;
    app.on('error', (err: unknown) => logClientFault(service.logger, err, 'koa error', 'debug'));
    const accounts = serviceMiddleware(service);
    const router = new Router();
    extend?.({ app, router, service, accounts });
    if (!app.middleware.includes(accounts)) app.middleware.unshift(accounts);
    app.middleware.unshift(answerAfterReads);
    if (router.stack.length > 0) app.use(router.routes()).use(router.allowedMethods());
    return app.callback();
  };
}

/**
 * What an entry script does: configuration from the environment, the Koa app (`extend` adding to
 * it), the hardened node server around it, a graceful stop on SIGTERM/SIGINT (see `runMain`).
 */
export function run(extend?: KoaExtension): Promise<void> {
  return runMain(koaServer(extend));
}
