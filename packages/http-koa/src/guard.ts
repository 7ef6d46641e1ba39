import type { Middleware } from 'koa';
import type { AuthorizeOptions, HttpService } from '@sl-accounts/service/http';
import { send } from './send.ts';

/**
 * The guard of the app's own routes: the signed-in user on `ctx.state.user`, or the contract's answer
 * (401 with the cookie cleared, 403 for what `options` asks, 503 when the store does not answer).
 *
 *   router.get('/me', requireSession(service), (ctx) => { ctx.body = ctx.state.user; });
 */
export function requireSession(service: HttpService, options?: AuthorizeOptions): Middleware {
  const { api } = service;
  return async (ctx, next) => {
    const { user, answer } = await api.authorize(ctx.req, options);
    if (answer) return send(ctx, answer);
    ctx.state.user = user;
    await next();
  };
}
