import { randomBytes } from 'node:crypto';
import Koa, { type Context } from 'koa';
import { Router } from '@koa/router';
import bodyParser from 'koa-bodyparser';
import type { Logger } from 'pino';
import type { Accounts, RequestMeta, User } from '@sl/core';
import { BadRequest, fillEmptyErrorBody, respondToError, setRateLimitHeaders } from './error-response.ts';
import { SESSION_COOKIE, clearedSessionCookie, sessionCookie } from './session-cookie.ts';

export interface AppOptions {
  readonly accounts: Accounts;
  readonly logger: Logger;
  /** Trusted proxy hops in front of the server; 0 ignores `X-Forwarded-For`. */
  readonly trustProxy?: number;
  /** Further routes to register beside the API (discovery resources, /mcp). */
  readonly extraRoutes?: readonly ((router: Router) => void)[];
}

/** Largest request body, in bytes (after decompression), for the JSON API and /mcp alike. */
export const BODY_LIMIT_BYTES = 64 * 1024;

const COMMON_HEADERS = { 'X-Content-Type-Options': 'nosniff' };
const API_HEADERS = { ...COMMON_HEADERS, 'Cache-Control': 'no-store' };

/** Request ids: unique per process start (random prefix) and cheap per request (a counter). */
const bootId = randomBytes(6).toString('base64url');
let requestCounter = 0;
const nextRequestId = () => `${bootId}-${(++requestCounter).toString(36)}`;

/**
 * Reads the JSON body. Called by the use case only after the rate limit counted the request, so
 * malformed, oversized and wrongly-typed bodies count too.
 */
function jsonBody(ctx: Context): () => Promise<unknown> {
  return async () => {
    if (!ctx.request.is('application/json', '+json')) {
      throw new BadRequest('Content-Type must be application/json');
    }
    try {
      await parseJson(ctx, async () => {});
    } catch (error) {
      // zlib's and brotli's errors (a body that claims gzip, deflate or br but is not) carry no HTTP status.
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && /^(Z_|ERR__ERROR_)/.test(code)) throw new BadRequest('The request body could not be decompressed');
      throw error;
    }
    return ctx.request.body;
  };
}

const parseJson = bodyParser({ enableTypes: ['json'], jsonLimit: `${BODY_LIMIT_BYTES}b`, strict: true });

function meta(ctx: Context): RequestMeta {
  return {
    clientIp: ctx.ip,
    userAgent: ctx.get('User-Agent') || null,
    sessionToken: ctx.cookies.get(SESSION_COOKIE) ?? null,
    onRateLimit: (status) => setRateLimitHeaders(ctx, status),
  };
}

function userResponse(ctx: Context, status: number, user: User): void {
  ctx.status = status;
  ctx.body = { ok: true, user: { id: user.id, name: user.name, email: user.email } };
}

/** Registers the six API operations on `router`. */
export function addApiRoutes(router: Router, accounts: Accounts): void {
  router.get('/api/health', async (ctx) => {
    const health = await accounts.health();
    ctx.status = health.ok ? 200 : 503;
    ctx.body = health;
  });

  router.post('/api/signup', async (ctx) => {
    const { user, session } = await accounts.signup(jsonBody(ctx), meta(ctx));
    ctx.append('Set-Cookie', sessionCookie(session.token, session.maxAgeSeconds));
    userResponse(ctx, 201, user);
  });

  router.post('/api/login', async (ctx) => {
    const { user, session } = await accounts.login(jsonBody(ctx), meta(ctx));
    ctx.append('Set-Cookie', sessionCookie(session.token, session.maxAgeSeconds));
    userResponse(ctx, 200, user);
  });

  router.post('/api/logout', async (ctx) => {
    await accounts.logout(meta(ctx));
    ctx.append('Set-Cookie', clearedSessionCookie());
    ctx.body = { ok: true };
  });

  router.get('/api/me', async (ctx) => {
    userResponse(ctx, 200, await accounts.me(meta(ctx)));
  });

  router.post('/api/contact', async (ctx) => {
    await accounts.contact(jsonBody(ctx), meta(ctx));
    ctx.body = { ok: true };
  });
}

/** The Koa application: logging, error mapping, the API routes and `extraRoutes`. */
export function createApp(options: AppOptions): Koa {
  const { logger } = options;
  const app = new Koa({ proxy: (options.trustProxy ?? 0) > 0, maxIpsCount: options.trustProxy ?? 0 });
  app.silent = true;
  app.on('error', (error: unknown) => logger.error({ err: error }, 'koa error'));

  // The one wrapping middleware: request id, common headers, error mapping and one log line per
  // request. The log line has no headers, bodies or query strings, so nothing secret can leak.
  app.use(async (ctx, next) => {
    const start = performance.now();
    const reqId = nextRequestId();
    ctx.state.reqId = reqId;
    ctx.set(ctx.path.startsWith('/api/') ? API_HEADERS : COMMON_HEADERS);
    ctx.set('X-Request-Id', reqId);
    try {
      await next();
      if (ctx.body == null) fillEmptyErrorBody(ctx);
    } catch (error) {
      respondToError(ctx, error, logger);
    }
    logger.info(
      { reqId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round((performance.now() - start) * 10) / 10 },
      'request',
    );
  });

  // The API has a router of its own, ahead of the rest: the router tries every route of a router in
  // turn, so API requests, the hot ones, never pay for matching the discovery routes.
  const api = new Router();
  addApiRoutes(api, options.accounts);
  const rest = new Router();
  for (const add of options.extraRoutes ?? []) add(rest);
  for (const router of [api, rest]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
