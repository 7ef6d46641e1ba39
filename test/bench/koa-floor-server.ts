/**
 * Koa's own floor: the health JSON from bare Koa (`MODE=bare`) or from Koa with @koa/router and the
 * service's route table shape (`MODE=router`), with none of the service's middleware. Beside the
 * node:http floor it shows how much of the gap is the framework's and how much the service's.
 */
import Koa from 'koa';
import { Router } from '@koa/router';

const health = () => ({ ok: true, status: 'ok', service: 'sl-accounts', time: new Date().toISOString() });
const app = new Koa();
if (process.env.MODE === 'router') {
  const router = new Router();
  router.get('/api/health', (ctx) => {
    ctx.body = health();
  });
  for (const path of ['/api/signup', '/api/login', '/api/logout', '/api/contact']) router.post(path, (ctx) => void (ctx.status = 204));
  router.get('/api/me', (ctx) => void (ctx.status = 204));
  app.use(router.routes());
  app.use(router.allowedMethods());
} else {
  app.use((ctx) => {
    ctx.body = health();
  });
}
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
