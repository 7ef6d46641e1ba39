/** The Fastify 5 adapter: the whole service (API, documents, `/mcp`) as an encapsulated plugin, and a `preHandler` session guard. */
/** The service as a plugin: `app.register(accounts(service), { prefix: '/accounts' })`. */
export { accounts } from './plugin.ts';
/** The guard for the app's own routes: `request.user`, or the contract's answer. */
export { requireSession } from './guard.ts';
