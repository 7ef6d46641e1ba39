/**
 * Koa's own floor, with none of the service's middleware: the health JSON from bare Koa
 * (`MODE=bare`) or from Koa with `@koa/router` and the service's route table shape (`MODE=router`);
 * with `DATABASE_URL` set, the router's GET /api/me also does what floor-me-server.ts does (cookie,
 * SHA-256 digest, the same prepared session + user lookup on a pg pool of the same size, expiry
 * check). Beside the node:http floors it shows how much of the gap is the framework's and how much
 * the service's.
 */
import { createHash } from 'node:crypto';
import Koa, { type Context } from 'koa';
import { Router } from '@koa/router';
import pg from 'pg';

const health = () => ({ ok: true, status: 'ok', service: 'sl-accounts', time: new Date().toISOString() });
const app = new Koa();
const pool = process.env.DATABASE_URL ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) }) : undefined;
const LOOKUP = {
  name: 'floor_me',
  text: 'select u.id, u.name, u.email, s.expires_at from sessions s join users u on u.id = s.user_id where s.token_digest = $1',
};

async function me(ctx: Context) {
  if (!pool) return void (ctx.status = 204);
  ctx.set('cache-control', 'no-store');
  const token = ctx.cookies.get('sl_session');
  const digest = token ? createHash('sha256').update(token).digest('hex') : null;
  const row = digest ? ((await pool.query({ ...LOOKUP, values: [digest] })).rows[0] as { id: number; name: string; email: string; expires_at: Date } | undefined) : undefined;
  if (!row || row.expires_at.getTime() <= Date.now()) {
    ctx.status = 401;
    ctx.body = { ok: false, error: 'Not signed in' };
    return;
  }
  ctx.body = { ok: true, user: { id: row.id, name: row.name, email: row.email } };
}

if (process.env.MODE === 'router') {
  const router = new Router();
  router.get('/api/health', (ctx) => {
    ctx.body = health();
  });
  for (const path of ['/api/signup', '/api/login', '/api/logout', '/api/contact']) router.post(path, (ctx) => void (ctx.status = 204));
  router.get('/api/me', me);
  app.use(router.routes());
  app.use(router.allowedMethods());
} else {
  app.use((ctx) => {
    ctx.body = health();
  });
}
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => void (pool?.end() ?? Promise.resolve()).then(() => process.exit(0))));
