import type { preHandlerAsyncHookHandler } from 'fastify';
import type { User } from '@sl-accounts/service/core';
import type { AuthorizeOptions, HttpService } from '@sl-accounts/service/http';
import { send } from './send.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, on the routes `requireSession` of `@sl-accounts/http-fastify` guards. */
    user?: User;
  }
}

/**
 * A `preHandler` for the app's own routes: the signed-in user on `request.user`, or the contract's
 * answer (401 with the cookie cleared, 403 for what `options` asks, 503 when the store does not
 * answer).
 *
 *   app.get('/me', { preHandler: requireSession(service) }, async (request) => request.user);
 */
export function requireSession(service: HttpService, options?: AuthorizeOptions): preHandlerAsyncHookHandler {
  const { api } = service;
  return async (request, reply) => {
    const { user, answer } = await api.authorize(request.raw, options);
    if (answer) return send(reply, answer);
    request.user = user;
  };
}
