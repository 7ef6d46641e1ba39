/**
 * The service inside a Koa 3 app written the way Koa apps are: a global body parser mounted first,
 * the app's own @koa/router routes, and the service's router beside them (under `BASE_PATH` when
 * set). `GET /hello/me` is the app's own route behind the service's session guard. It reads the same
 * environment as `pnpm start`:
 *
 *   STORE=memory BASE_PATH=/accounts node examples/koa/server.ts
 */
import Koa from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import type { User } from '@sl-accounts/core';
import { logClientFault } from '@sl-accounts/http';
import { requireSession, serviceErrors, serviceRouter, wellKnownRouter } from '@sl-accounts/http-koa';
import { runMain, type ListenerFactory } from '@sl-accounts/server';

export const koaAppHost: ListenerFactory = ({ api, mcp, logger }) => {
  const app = new Koa();
  app.silent = true;
  app.on('error', (err: unknown) => logClientFault(logger, err, 'koa error', 'debug'));

  // The app's own error handler: its errors as JSON, by their `status` and `expose` (http-errors' convention).
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const { status, expose, message } = error as { status?: number; expose?: boolean; message?: string };
      ctx.status = typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
      ctx.body = { ok: false, error: expose && message ? message : 'Internal server error' };
      if (ctx.status >= 500) logger.error({ err: error }, 'app error');
    }
  });
  // Before the body parser: a body it refuses on the service's paths gets the service's own answer.
  app.use(serviceErrors({ api, mcp }));
  app.use(bodyParser());

  const own = new Router();
  own.get('/hello', (ctx) => {
    ctx.body = { ok: true, hello: 'world' };
  });
  own.get('/hello/me', requireSession({ api }), (ctx) => {
    const user = ctx.state.user as User;
    ctx.body = { ok: true, hello: user.email };
  });
  app.use(own.routes()).use(own.allowedMethods());

  const accounts = serviceRouter({ api, mcp });
  app.use(accounts.routes()).use(accounts.allowedMethods());
  // Under a base path, the /.well-known/ documents still belong at the origin's root.
  if (api.basePath) app.use(wellKnownRouter({ api }).routes());
  return app.callback();
};

if (import.meta.main) await runMain(koaAppHost);
