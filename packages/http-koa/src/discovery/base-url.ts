import type { Context } from 'koa';

/**
 * The absolute base URL that discovery documents put in front of paths: `PUBLIC_URL` when it is
 * configured, else the request's own scheme and host (Koa honours `X-Forwarded-Proto`/`-Host` only
 * when proxies are trusted). Not `ctx.origin`: since Koa 3 that is the request's Origin header.
 */
export function baseUrlOf(ctx: Context, publicUrl: string | undefined): string {
  return publicUrl ?? `${ctx.protocol}://${ctx.host}`;
}
