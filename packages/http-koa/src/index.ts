/** The Koa adapter: the whole service (API, documents, `/mcp`) in a Koa app, beside the app's own routes. */
/** The service as the routes of an @koa/router router: `app.use(accounts(service))`, or `router.use('/v1', accounts(service))`. */
export { accounts } from './accounts.ts';
/** The guard for the app's own routes: the signed-in user on `ctx.state.user`, or the contract's answer. */
export { requireSession } from './guard.ts';
/** The service as the last middleware of an app that serves nothing else. */
export { serviceMiddleware } from './app.ts';
/** A Koa application serving only the service (what `pnpm start` runs). */
export { createApp } from './app.ts';
