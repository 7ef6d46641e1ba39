/** The Koa adapter: the HTTP contract (and `/mcp`) in a Koa app, beside the app's own routes. */
/** The service as an @koa/router router, for an app with routers of its own. */
export { serviceRouter } from './app.ts';
/** Under a base path, the `/.well-known/` documents at the origin's root. */
export { wellKnownRouter } from './app.ts';
/** Mounted before a body parser: its failures on the service's paths answered the contract's way. */
export { serviceErrors } from './app.ts';
/** The guard for the app's own routes: the signed-in user on `ctx.state.user`, or the contract's 401. */
export { requireSession } from './app.ts';
/** The service as the last middleware of an app that serves nothing else. */
export { serviceMiddleware } from './app.ts';
/** A Koa application serving only the service (what `pnpm start` runs). */
export { createApp } from './app.ts';
/** What the adapter serves: the contract's `api` and, optionally, the MCP endpoint. */
export type { KoaServiceOptions } from './app.ts';
