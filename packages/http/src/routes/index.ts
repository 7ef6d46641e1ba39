/**
 * The route table: the one list of the API's operations. Routing in every host, the OpenAPI paths,
 * and the operations of auth.md and the agent skills, with their fields, path parameters and
 * examples, are all derived from it: a route declared in a resource file and listed here appears in
 * every document with no other edit.
 *
 * Each route is declared in the file of its resource, named by the path: health.ts (`/api/health`),
 * account.ts (`/api/signup`, `/api/me`), login.ts (`/api/login/*`), sessions.ts (`/api/sessions`,
 * `/api/logout`), contact.ts, identity.ts (`/api/password*`, `/api/email*`: what identifies the
 * account), second-factor.ts (`/api/two-factor/*`), passkeys.ts (`/api/passkeys/*`), sign-in-providers.ts
 * (`/api/sign-in/*`, `/api/me/identities*`) and activity.ts (`/api/me/activity`, `/api/me/export`: the
 * owner's record). The list
 * below gives their order, which every document and the MCP tools follow.
 */
import { getHealth } from './health.ts';
import { deleteAccount, getCurrentUser, signup, updateProfile } from './account.ts';
import { login, loginSecondFactor, loginWithPasskey, passkeyLoginOptions } from './login.ts';
import { endSession, listSessions, logout } from './sessions.ts';
import { sendContactMessage } from './contact.ts';
import { changePassword, confirmEmail, confirmPasswordReset, requestEmailChange, requestPasswordReset, resendEmailVerification } from './identity.ts';
import { confirmTotp, disableTotp, renewRecoveryCodes, startTotp } from './second-factor.ts';
import { listPasskeys, passkeyRegistrationOptions, passkeySignInOptions, passkeyStepUpOptions, registerPasskey, removePasskey, renamePasskey, signInWithPasskey, stepUpWithPasskey } from './passkeys.ts';
import { finishProviderSignIn, listIdentities, listSignInProviders, startIdentityLink, startProviderSignIn, unlinkIdentity } from './sign-in-providers.ts';
import { exportMyAccount, listMyActivity } from './activity.ts';
import { SESSION_ENDED } from './responses.ts';
import type { ApiRoute } from './route.ts';

export type { ApiRoute, DocumentedResponse, OperationResult, PathParameter, RequestSchema, ResponseSchemaName } from './route.ts';

/**
 * A route as the table holds it: with `auth: 'session'`, the session-ended 401 (cookie cleared),
 * unless the route answers a 401 of its own (logout's, a step-up's).
 */
function withDerivedResponses(route: ApiRoute): ApiRoute {
  if (route.auth !== 'session' || route.responses['401']) return route;
  return { ...route, responses: { ...route.responses, '401': SESSION_ENDED } };
}

/** The route table: every operation, its path, method, limits, body and documented responses. */
export const API_ROUTES: readonly ApiRoute[] = [
  getHealth,
  signup,
  login,
  loginSecondFactor,
  logout,
  getCurrentUser,
  sendContactMessage,
  listSessions,
  endSession,
  changePassword,
  requestPasswordReset,
  confirmPasswordReset,
  updateProfile,
  resendEmailVerification,
  confirmEmail,
  requestEmailChange,
  deleteAccount,
  startTotp,
  confirmTotp,
  disableTotp,
  renewRecoveryCodes,
  passkeyRegistrationOptions,
  registerPasskey,
  listPasskeys,
  renamePasskey,
  removePasskey,
  passkeySignInOptions,
  signInWithPasskey,
  passkeyLoginOptions,
  loginWithPasskey,
  passkeyStepUpOptions,
  stepUpWithPasskey,
  listSignInProviders,
  startProviderSignIn,
  finishProviderSignIn,
  listIdentities,
  startIdentityLink,
  unlinkIdentity,
  listMyActivity,
  exportMyAccount,
].map(withDerivedResponses);
