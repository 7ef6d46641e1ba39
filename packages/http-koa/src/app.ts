import Koa, { type Middleware } from 'koa';
import { logClientFault, type HttpService, type Logger } from '@sl-accounts/http';
import { toHttpRequest } from '@sl-accounts/http-node';
import { send } from './send.ts';

/**
 * Middleware that answers every request with the service, the contract's own 404 included: the
 * last middleware of an app that serves nothing else.
 */
export function serviceMiddleware({ api }: HttpService): Middleware {
  return async (ctx) => send(ctx, await api.handle(toHttpRequest(ctx.req, undefined, ctx.originalUrl)));
}

/**
 * A Koa application serving only this service (`pnpm start` until issue 35, which now serves on
 * node:http without Koa). Errors Koa itself meets are logged,
 * never shown: a client that hung up as one short debug line, anything else as an error.
 *
 * Here every path is the service's (its own 404 included, and under a base path the root
 * `/.well-known/` documents), so the app is `serviceMiddleware` alone, without the router of
 * `accounts`: it would send every request to the same place and cost a fifth of `/api/health`'s
 * throughput (35,000 vs 27,000 req/s, memory store, interleaved rounds; test/bench/ab.ts).
 */
export function createApp(service: HttpService & { readonly logger: Logger }): Koa {
  const app = new Koa();
  app.silent = true;
  // A broken connection also reaches node's 'clientError', which the server logs at info.
  app.on('error', (err: unknown) => logClientFault(service.logger, err, 'koa error', 'debug'));
  app.use(serviceMiddleware(service));
  return app;
}
