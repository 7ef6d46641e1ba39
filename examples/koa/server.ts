/**
 * The service inside a Koa 3 app written the way Koa apps are: the service's routes mounted first,
 * a global body parser after them (so the service reads its own bodies), the app's own `@koa/router`
 * routes, one of them behind the service's session guard. It reads the same environment as
 * `pnpm start` (BASE_PATH puts the service under a prefix):
 *
 *   STORE=memory BASE_PATH=/accounts node examples/koa/server.ts
 */
import Koa from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import { accounts, requireSession } from '@sl-accounts/http-koa';
import { runMain, type ListenerFactory } from '@sl-accounts/server';

export const koaAppHost: ListenerFactory = (service) => {
  const app = new Koa();
  app.use(accounts(service));
  app.use(bodyParser());

  const own = new Router();
  own.get('/hello', (ctx) => {
    ctx.body = { ok: true, hello: 'world' };
  });
  own.get('/hello/me', requireSession(service), (ctx) => {
    ctx.body = { ok: true, hello: ctx.state.user.email };
  });
  app.use(own.routes()).use(own.allowedMethods());
  return app.callback();
};

if (import.meta.main) await runMain(koaAppHost);
