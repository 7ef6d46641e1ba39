/** The Express adapter (Express 4 and 5): the whole service (API, documents, `/mcp`) as one middleware, and a session guard. */
/** The service at any prefix: `app.use('/accounts', accounts(service))`, before or after `express.json()`. */
export { accounts } from './express.ts';
/** The guard for the app's own routes: the signed-in user on `res.locals.user` and `req.user`, or the contract's answer. */
export { requireSession } from './express.ts';
