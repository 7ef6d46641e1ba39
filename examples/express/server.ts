/**
 * The service inside an Express 5 app written the way Express apps are: `express.json()` for the
 * whole app, the app's own routes, the service mounted under `BASE_PATH` (or the root) beside them,
 * and one error handler at the end. `GET /hello/me` is the app's own route behind the service's
 * session guard. It reads the same environment as `pnpm start`:
 *
 *   STORE=memory BASE_PATH=/accounts node examples/express/server.ts
 */
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { isHostBodyError, type HostBody, type HttpApi } from '@sl-accounts/http';
import { sendAnswer, toHttpRequest } from '@sl-accounts/http-node';
import { runMain, type ListenerFactory, type Service } from '@sl-accounts/server';

/** The service for every path it owns (`req.originalUrl`: the target as received, before any mount stripped it); anything else falls through. */
function serviceHandler({ api, mcp }: Pick<Service, 'api' | 'mcp'>): RequestHandler & { answer(req: Request, res: Response, failed?: unknown): Promise<void> } {
  async function answer(req: Request, res: Response, failed?: unknown): Promise<void> {
    // express.json() has already read JSON bodies: hand over what it parsed, or the error it met.
    // A refusal before reading (a content coding it does not know, such as `x-gzip`) left the body whole for the contract.
    const hostBody: HostBody | undefined = !req.readableDidRead ? undefined : failed !== undefined ? { failed } : { parsed: req.body as unknown };
    if (mcp.handles(req.originalUrl)) return mcp.handleNode(req, res, hostBody);
    sendAnswer(res, await api.handle(toHttpRequest(req, hostBody, req.originalUrl)));
  }
  const handler: RequestHandler = (req, res, next) => {
    if (!api.owns(req.originalUrl) && !mcp.handles(req.originalUrl)) return next();
    return answer(req, res);
  };
  return Object.assign(handler, { answer });
}

/** The guard: the signed-in user on `res.locals.user` (and `req.user`), or the contract's 401. */
function requireSession(api: HttpApi): RequestHandler {
  return async (req, res, next) => {
    const user = await api.session(req);
    if (!user) return sendAnswer(res, api.unauthenticated(req));
    res.locals.user = user;
    (req as Request & { user?: unknown }).user = user;
    next();
  };
}

export const expressHost: ListenerFactory = ({ api, mcp, logger }) => {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json());

  app.get('/hello', (_req, res) => {
    res.json({ ok: true, hello: 'world' });
  });
  app.get('/hello/me', requireSession(api), (_req, res) => {
    res.json({ ok: true, hello: (res.locals.user as { email: string }).email });
  });

  const service = serviceHandler({ api, mcp });
  app.use(api.basePath || '/', service);
  // Under a base path, the /.well-known/ documents still belong at the origin's root.
  if (api.basePath) app.use('/.well-known', service);

  // The app's one error handler. A body express.json() refused on the service's paths gets the
  // service's answer (its ErrorResponse, no limit spent), never Express's HTML page and stack.
  const errors: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    if ((api.owns(req.originalUrl) || mcp.handles(req.originalUrl)) && isHostBodyError(error)) {
      service.answer(req, res, error).catch(next);
      return;
    }
    const { status, expose, message } = error as { status?: number; expose?: boolean; message?: string };
    const code = typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
    if (code >= 500) logger.error({ err: error }, 'app error');
    res.status(code).json({ ok: false, error: expose && message ? message : 'Internal server error' });
  };
  app.use(errors);
  return app;
};

if (import.meta.main) await runMain(expressHost);
