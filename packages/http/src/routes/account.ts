/**
 * The account itself: creating it (`POST /api/signup`), reading it, renaming it and deleting it (`/api/me`).
 */
import { DeleteAccountRequest, PROFILE_SESSION_POLICY, SECOND_FACTOR_ACCOUNT_POLICY, SESSION_PASSWORD_POLICY, SignupRequest, STEP_UP_WINDOW_MS, UpdateProfileRequest } from '@sl-accounts/service/core';
import { ERROR_EXAMPLES, EXAMPLE_DELETE_ACCOUNT, EXAMPLE_OK, EXAMPLE_SIGNUP, EXAMPLE_UPDATE_PROFILE, EXAMPLE_USER_RESPONSE } from '../examples.ts';
import { clearedSessionCookie } from '../session-cookie.ts';
import { ACCOUNT_CHANGED, okAnswer, PASSWORD_AND_CODE_REFUSED, signedInAnswer, userAnswer } from './responses.ts';
import type { ApiRoute } from './route.ts';

export const signup: ApiRoute = {
  method: 'POST',
  path: '/api/signup',
  operationId: 'signup',
  summary: 'Create an account',
  description: 'Creates an account and signs it in. The e-mail address is trimmed and lower-cased first; the name is trimmed.',
  tag: 'accounts',
  changesState: true,
  auth: 'public',
  limited: 'signup',
  requestBody: SignupRequest,
  requestExample: EXAMPLE_SIGNUP,
  responses: {
    '201': { description: 'Account created and signed in.', body: 'UserResponse', example: EXAMPLE_USER_RESPONSE, cookie: 'set' },
    '409': { description: 'The e-mail address is already registered.', body: 'ErrorResponse', example: ERROR_EXAMPLES.emailTaken, codes: ['email_taken'] },
  },
  run: async (accounts, request) => {
    return signedInAnswer(201, await accounts.signup(request.bodyReader(), request.meta()), request.base);
  },
};

export const getCurrentUser: ApiRoute = {
  method: 'GET',
  path: '/api/me',
  operationId: 'getCurrentUser',
  summary: 'Current user',
  description: 'The user of the session cookie sent along.',
  tag: 'accounts',
  changesState: false,
  auth: 'session',
  responses: { '200': { description: 'The signed-in user.', body: 'UserResponse', example: EXAMPLE_USER_RESPONSE } },
  run: async (accounts, request) => userAnswer(200, await accounts.me({ sessionToken: request.sessionToken() })),
};

export const updateProfile: ApiRoute = {
  method: 'PATCH',
  path: '/api/me',
  operationId: 'updateProfile',
  summary: 'Change the name',
  description: 'Sets the signed-in user’s name (trimmed; the signup bounds) and answers the user as it now is. Every request counts against this session’s own limit on changes of name.',
  tag: 'accounts',
  auth: 'session',
  changesState: true,
  alsoLimited: [PROFILE_SESSION_POLICY],
  requestBody: UpdateProfileRequest,
  requestExample: EXAMPLE_UPDATE_PROFILE,
  responses: {
    '200': { description: 'The name changed.', body: 'UserResponse', example: { ok: true, user: { ...EXAMPLE_USER_RESPONSE.user, name: EXAMPLE_UPDATE_PROFILE.name } } },
  },
  run: async (accounts, request) => {
    const { user, limits } = await accounts.updateProfile(request.bodyReader(), request.meta());
    return userAnswer(200, user, undefined, limits);
  },
};

export const deleteAccount: ApiRoute = {
  method: 'DELETE',
  path: '/api/me',
  operationId: 'deleteAccount',
  summary: 'Delete the account',
  description: `Deletes the signed-in user, their sessions and reset token after checking the password, and clears the cookie; the address may then sign up again, as a new account that inherits nothing (device cookies of the old one count for nothing). A security notice goes to the address it had (unless turned off). With two-factor authentication on, it also needs a current TOTP \`code\` in the body, unless a factor was verified for this session in the last ${STEP_UP_WINDOW_MS / 60_000} minutes (a login’s second step, or a code sent with an earlier change): 403 \`second_factor_required\` otherwise.`,
  tag: 'accounts',
  auth: 'session',
  changesState: true,
  alsoLimited: [SESSION_PASSWORD_POLICY, SECOND_FACTOR_ACCOUNT_POLICY],
  requestBody: DeleteAccountRequest,
  requestExample: EXAMPLE_DELETE_ACCOUNT,
  responses: {
    '200': { description: 'The account is gone.', body: 'Ok', example: EXAMPLE_OK, cookie: 'clear' },
    '403': PASSWORD_AND_CODE_REFUSED,
    '409': ACCOUNT_CHANGED,
  },
  run: async (accounts, request) => {
    const { limits } = await accounts.deleteAccount(request.bodyReader(), request.meta());
    return { ...okAnswer(200, {}, limits), setCookie: clearedSessionCookie() };
  },
};
