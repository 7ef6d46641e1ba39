/** The Koa adapter: the whole service (API, documents, `/mcp`) in a Koa app, beside the app's own routes. */

export { accounts, deferBodyError } from './accounts.ts';
export { requireSession } from './guard.ts';
export { serviceMiddleware } from './app.ts';
export { createApp } from './app.ts';
