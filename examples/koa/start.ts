/**
 * `pnpm start` with an operator's own middleware and routes: the file an operator owns (README,
 * "Your own routes"). It reads the same environment as `pnpm start` and runs the same hardened server.
 *
 *   STORE=memory node examples/koa/start.ts
 */
import bodyParser from 'koa-bodyparser';
import { requireSession } from '@sl-accounts/http-koa';
import { run, type KoaExtension } from '@sl-accounts/server';

export const extend: KoaExtension = ({ app, router, service }) => {
  // Parses the bodies of your routes; the service's requests are answered before it, reading their own.
  app.use(bodyParser());
  router.get('/hello', (ctx) => void (ctx.body = { ok: true, hello: 'world' }));
  router.post('/hello', (ctx) => void (ctx.body = { ok: true, hello: ctx.request.body }));
  router.get('/hello/me', requireSession(service), (ctx) => void (ctx.body = { ok: true, hello: ctx.state.user.email }));
};

if (import.meta.main) await run(extend);
