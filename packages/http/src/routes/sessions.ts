/**
 * The account's sessions: listing and ending them (`/api/sessions`), and logging out (`POST /api/logout`).
 */
import { ERROR_EXAMPLES, EXAMPLE_OK, EXAMPLE_SESSION_ID, EXAMPLE_SESSIONS } from '../examples.ts';
import { clearedSessionCookie } from '../session-cookie.ts';
import { okAnswer } from './responses.ts';
import type { ApiRoute } from './route.ts';

export const logout: ApiRoute = {
  method: 'POST',
  path: '/api/logout',
  operationId: 'logout',
  summary: 'Log out',
  description: 'Ends the session of the cookie sent along and clears the cookie.',
  tag: 'accounts',
  changesState: true,
  auth: 'session',
  responses: {
    '200': { description: 'Session ended.', body: 'Ok', example: EXAMPLE_OK, cookie: 'clear' },
    '401': { description: 'No valid session; the cookie is cleared anyway.', body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
  },
  run: async (accounts, request) => {
    await accounts.logout({ sessionToken: request.sessionToken() });
    return { ...okAnswer(200), setCookie: clearedSessionCookie() };
  },
};

export const listSessions: ApiRoute = {
  method: 'GET',
  path: '/api/sessions',
  operationId: 'listSessions',
  summary: 'List sessions',
  description: 'The signed-in user’s sessions that have not expired, oldest first; `current` marks the one of the cookie sent along. An `id` is opaque: neither the token nor anything derived from it.',
  tag: 'accounts',
  changesState: false,
  auth: 'session',
  responses: { '200': { description: 'The sessions.', body: 'SessionsResponse', example: EXAMPLE_SESSIONS } },
  run: async (accounts, request) => okAnswer(200, { sessions: await accounts.listSessions({ sessionToken: request.sessionToken() }) }),
};

export const endSession: ApiRoute = {
  method: 'DELETE',
  path: '/api/sessions/{id}',
  operationId: 'endSession',
  summary: 'End a session',
  description: 'Ends one of the signed-in user’s sessions, by the `id` that `GET /api/sessions` lists. Ending the session of the cookie sent along also clears the cookie.',
  tag: 'accounts',
  auth: 'session',
  changesState: true,
  pathParameters: { id: { description: 'The `id` of one of the sessions that `GET /api/sessions` lists.', example: EXAMPLE_SESSION_ID } },
  responses: {
    '200': { description: 'The session ended.', body: 'Ok', example: EXAMPLE_OK },
    '404': { description: 'No session of this user has that id.', body: 'ErrorResponse', example: ERROR_EXAMPLES.sessionNotFound, codes: ['not_found'] },
  },
  run: async (accounts, request) => {
    const { current } = await accounts.endSession(request.param('id'), { sessionToken: request.sessionToken() });
    return { ...okAnswer(200), ...(current ? { setCookie: clearedSessionCookie() } : {}) };
  },
};
