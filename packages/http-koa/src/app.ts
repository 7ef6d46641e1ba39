import Koa, { type Middleware } from 'koa';
import { logClientFault, type HttpService, type Logger } from '@sl-accounts/service/http';
import { toHttpRequest } from '@sl-accounts/service/http-node';
import { hostBodyOf } from './accounts.ts';
import { send } from './send.ts';

/**
 * The service as one middleware, without a router: it answers the service's paths itself; any other
 * path goes on to the middleware after it, and what nothing there answered (Koa's "not found": no
 * status set, no body) gets the contract's JSON 404. Alone in an app, it answers every request.
 * Before a body parser the service reads its own bodies; after one (with `deferBodyError`), it
 * takes what the parser read, as `accounts` does.
 */
export function serviceMiddleware({ api }: HttpService): Middleware {
  return async (ctx, next) => {
    const url = ctx.originalUrl;
    if (!api.serves(url)) {
      await next();
      if (ctx.status !== 404 || ctx.body != null) return;
    }
    send(ctx, await api.handle(toHttpRequest(ctx.req, hostBodyOf(ctx), url)));
  };
}

/**
 * A Koa application serving only this service (`pnpm start`'s app, `koaServer` of
 * `@sl-accounts/server`, is this with the operator's own middleware and routes after the service's). Errors Koa itself meets are logged,
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
