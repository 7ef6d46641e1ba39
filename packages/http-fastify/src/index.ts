/** The Fastify 5 adapter: the whole service (API, documents, `/mcp`) as an encapsulated plugin, and a `preHandler` session guard. */

export { accounts } from './plugin.ts';
export { requireSession } from './guard.ts';
