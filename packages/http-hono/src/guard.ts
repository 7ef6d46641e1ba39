import type { MiddlewareHandler } from 'hono';
import type { User } from '@sl-accounts/service/core';
import type { AuthorizeOptions, HttpService } from '@sl-accounts/service/http';
import { toResponse } from './response.ts';

/** What the guard sets: `c.get('user')`. */
export interface SessionEnv {
  Variables: { user: User };
}

/**
 * Middleware for the app's own routes: the signed-in user as `c.get('user')`, or the contract's
 * answer (401 with the cookie cleared, 403 for what `options` asks, 503 when the store does not
 * answer). It reads only the request's headers, so it runs on any runtime.
 *
 *   app.get('/me', requireSession(service), (c) => c.json(c.get('user')));
 */
export function requireSession(service: HttpService, options?: AuthorizeOptions): MiddlewareHandler<SessionEnv> {
  const { api } = service;
  return async (c, next) => {
    const { user, answer } = await api.authorize({ headers: c.req.header() }, options);
    if (answer) return toResponse(answer);
    c.set('user', user);
    await next();
  };
}
