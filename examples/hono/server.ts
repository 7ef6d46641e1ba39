/**
 * The service inside a Hono app on Node (`@hono/node-server`), written the way Hono apps are: the
 * service's routes mounted with `app.route()`, the app's own routes beside them, and a middleware
 * guard that sets `c.get('user')`. It reads the same environment as `pnpm start` (BASE_PATH puts
 * the service under a prefix):
 *
 *   STORE=memory BASE_PATH=/accounts node examples/hono/server.ts
 */
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { accounts, requireSession } from '@sl-accounts/service/hono';
import { runMain, type ListenerFactory } from '@sl-accounts/server';

export const honoHost: ListenerFactory = (service) => {
  const app = new Hono();
  app.route('/', accounts(service));
  app.get('/hello', (c) => c.json({ ok: true, hello: 'world' }));
  app.get('/hello/me', requireSession(service), (c) => c.json({ ok: true, hello: c.get('user').email }));
  return getRequestListener(app.fetch);
};

if (import.meta.main) await runMain(honoHost);
