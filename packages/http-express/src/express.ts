/**
 * The service in an Express app (4 or 5), as Express mounts anything: `app.use(prefix, handlers)`.
 * Built on the Connect-style middleware of `@sl-accounts/service/http-node`; Express itself is never
 * imported, so the adapter fits whichever Express the app has.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { User } from '@sl-accounts/service/core';
import type { AuthorizeOptions, HttpService } from '@sl-accounts/service/http';
import { accounts as middleware, bodyErrors, sendAnswer, type Next } from '@sl-accounts/service/http-node';

/**
 * What Express hands a middleware, as far as the adapter reads it: Express's own types fit, and its
 * generics (`res.locals`) keep their defaults in the app's handlers.
 */
type Handler = (req: IncomingMessage, res: ServerResponse, next: Next) => void;
type ErrorHandler = (error: unknown, req: IncomingMessage, res: ServerResponse, next: Next) => void;

/**
 * The service's middleware and its error middleware, for one `app.use`:
 *
 *   app.use('/accounts', accounts(service));
 *
 * It answers the service's paths under the prefix it is mounted at (`req.baseUrl`; its links and
 * documents say so) and passes everything else on with `next()`. Before `express.json()` the
 * service reads its own bodies; after it, it takes what the parser read, and a body the parser
 * refused (malformed JSON, too large) gets the contract's ErrorResponse, never Express's HTML page.
 */
export function accounts(service: HttpService): [Handler, ErrorHandler] {
  return [middleware(service), bodyErrors(service)];
}

/**
 * The guard of the app's own routes: the signed-in user on `res.locals.user` (and `req.user`), or
 * the contract's answer: 401 with the cookie cleared, 403 for what `options` asks, 503 when the
 * store does not answer.
 *
 *   app.get('/me', requireSession(service), (req, res) => res.json(res.locals.user));
 */
export function requireSession(service: HttpService, options?: AuthorizeOptions): Handler {
  const { api } = service;
  return (req: IncomingMessage & { user?: User }, res: ServerResponse & { locals?: Record<string, unknown> }, next) => {
    void api.authorize(req, options).then(({ user, answer }) => {
      if (answer) return sendAnswer(res, answer);
      req.user = user;
      if (res.locals) res.locals.user = user;
      next();
    });
  };
}
