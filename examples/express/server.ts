/**
 * The service inside an Express 5 app written the way Express apps are: `express.json()` for the
 * whole app, the service mounted beside the app's own routes (under BASE_PATH when set), and a
 * route of the app's own behind the service's session guard. It reads the same environment as
 * `pnpm start`:
 *
 *   STORE=memory BASE_PATH=/accounts node examples/express/server.ts
 */
import express from 'express';
import { accounts, requireSession } from '@sl-accounts/http-express';
import { runMain, type ListenerFactory } from '@sl-accounts/server';

export const expressHost: ListenerFactory = (service) => {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json());
  app.use(accounts(service));

  app.get('/hello', (_req, res) => {
    res.json({ ok: true, hello: 'world' });
  });
  app.get('/hello/me', requireSession(service), (_req, res) => {
    res.json({ ok: true, hello: res.locals.user.email });
  });
  return app;
};

if (import.meta.main) await runMain(expressHost);
