/** The Hono adapter (on Node, `@hono/node-server`): the whole service (API, documents, `/mcp`) as a sub-app, and a session guard. */

export { accounts, type AccountsEnv } from './accounts.ts';
export { requireSession, type SessionEnv } from './guard.ts';
