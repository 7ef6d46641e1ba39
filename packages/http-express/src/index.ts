/** The Express adapter (Express 4 and 5): the whole service (API, documents, `/mcp`) as one middleware, and a session guard. */

export { accounts } from './express.ts';
export { requireSession } from './express.ts';
