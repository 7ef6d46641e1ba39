/** The Hono adapter (on Node, @hono/node-server): the whole service (API, documents, `/mcp`) as a sub-app, and a session guard. */
/** The service as a Hono app: `app.route('/accounts', accounts(service))`, or `app.mount('/accounts', accounts(service).fetch)`. */
export { accounts, type AccountsEnv } from './accounts.ts';
/** The guard middleware for the app's own routes: `c.get('user')`, or the contract's answer. */
export { requireSession, type SessionEnv } from './guard.ts';
