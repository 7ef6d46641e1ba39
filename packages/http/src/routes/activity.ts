/**
 * The owner's record (issue 43): their activity (`GET /api/me/activity`) and the export of
 * everything stored about them (`GET /api/me/export`).
 */
import { ERROR_EXAMPLES, EXAMPLE_ACTIVITY, EXAMPLE_EXPORT } from '../examples.ts';
import { okAnswer } from './responses.ts';
import type { ApiRoute } from './route.ts';

export const listMyActivity: ApiRoute = {
  method: 'GET',
  path: '/api/me/activity',
  operationId: 'listMyActivity',
  summary: 'List the account’s activity',
  description:
    'The signed-in account’s security events, newest first, 50 a page: sign-ups and sign-ins (with the method, the address, the user agent and whether the device was new), failed sign-ins summarised as a count per hour, changes of password, address, name and factors, sessions ended, and an operator’s lock or unlock (`actor` is then `operator`). `nextCursor`, sent back as `?cursor=`, gives the older ones; `null` at the end. Events are kept for ACTIVITY_RETENTION_DAYS (90 by default). No token, code, secret or password is ever in one.',
  tag: 'accounts',
  changesState: false,
  auth: 'session',
  queryParameters: { cursor: { description: 'The `nextCursor` of the page before; absent for the newest page.', example: '41' } },
  responses: {
    '200': { description: 'A page of events.', body: 'ActivityResponse', example: EXAMPLE_ACTIVITY },
    '400': { description: 'The cursor is not one this API gave.', body: 'ErrorResponse', example: ERROR_EXAMPLES.badCursor, codes: ['validation'] },
  },
  run: async (accounts, request) => okAnswer(200, await accounts.myActivity(request.query('cursor'), { sessionToken: request.sessionToken() })),
};

export const exportMyAccount: ApiRoute = {
  method: 'GET',
  path: '/api/me/export',
  operationId: 'exportMyAccount',
  summary: 'Export everything stored about the account',
  description:
    'One JSON document of everything the service stores about the signed-in person: the profile, live sessions (without tokens), second factors and passkeys (metadata only: never a secret or a code), identities, the activity log, and the contact messages sent from the account’s address. With a second factor on, the session needs a step-up within the last 10 minutes (403 `second_factor_required` otherwise). The export is itself recorded (`account-exported`).',
  tag: 'accounts',
  changesState: false,
  auth: 'session',
  responses: {
    '200': { description: 'The export.', body: 'AccountExportResponse', example: EXAMPLE_EXPORT },
    '403': { description: 'A second factor is on and the session has no recent step-up.', body: 'ErrorResponse', example: ERROR_EXAMPLES.secondFactorRequired, codes: ['second_factor_required'] },
  },
  run: async (accounts, request) =>
    okAnswer(200, { export: await accounts.exportMyAccount(request.meta()) }),
};
