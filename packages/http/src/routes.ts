/**
 * The route table: the one list of the API's operations. Routing in every host, the OpenAPI paths,
 * and the operations of auth.md and the agent skills, with their fields, path parameters and
 * examples, are all derived from it: a route added here appears in every document with no other edit.
 */
import {
  ACCOUNT_LOGIN_POLICY,
  DEVICE_LOGIN_POLICY,
  DEVICE_PROOF_TTL_MS,
  ChangePasswordRequest,
  ContactRequest,
  DeleteAccountRequest,
  EMAIL_LINK_ACCOUNT_POLICY,
  EMAIL_TOKEN_TTL_MS,
  EmailChangeRequest,
  EmailVerificationConfirmRequest,
  LoginRequest,
  PASSKEY_CHALLENGE_TTL_MS,
  PasskeyProofRequest,
  PasskeyRegistrationRequest,
  PasskeyRenameRequest,
  PasskeySignInRequest,
  PasswordResetConfirmRequest,
  INBOX_POLICY,
  PasswordResetRequest,
  PROFILE_SESSION_POLICY,
  RESET_ADDRESS_POLICY,
  RESET_TOKEN_TTL_MS,
  SESSION_PASSWORD_POLICY,
  SignupRequest,
  UpdateProfileRequest,
  StartTotpRequest,
  ConfirmTotpRequest,
  DisableTotpRequest,
  RenewRecoveryCodesRequest,
  SecondFactorLoginRequest,
  LOGIN_CHALLENGE_TTL_MS,
  MAX_CHALLENGE_FAILURES,
  RECOVERY_CODE_COUNT,
  SECOND_FACTOR_ACCOUNT_POLICY,
  SECOND_FACTOR_RECOVERY_POLICY,
  PASSKEY_OPTIONS_SESSION_POLICY,
  PASSKEY_SIGN_IN_TOTAL_POLICY,
  STEP_UP_WINDOW_MS,
  type Accounts,
  type parseRequest,
  type LimitedOperation,
  type RateLimitStatus,
  type User,
} from '@sl-accounts/core';
import type { ErrorCode } from './errors.ts';
import type { OperationRequest } from './operation-request.ts';
import {
  ERROR_EXAMPLES,
  EXAMPLE_CHANGE_PASSWORD,
  EXAMPLE_CONTACT,
  EXAMPLE_DELETE_ACCOUNT,
  EXAMPLE_EMAIL_CHANGE,
  EXAMPLE_EMAIL_CONFIRM,
  EXAMPLE_HEALTH,
  EXAMPLE_LOGIN,
  EXAMPLE_OK,
  EXAMPLE_PASSKEY,
  EXAMPLE_FIRST_PASSKEY_RESPONSE,
  EXAMPLE_PASSKEY_PROOF,
  EXAMPLE_PASSKEY_REGISTRATION,
  EXAMPLE_PASSKEY_RENAME,
  EXAMPLE_PASSKEY_SIGN_IN,
  EXAMPLE_PASSKEYS,
  EXAMPLE_REGISTRATION_OPTIONS,
  EXAMPLE_SIGN_IN_OPTIONS,
  EXAMPLE_RESET_CONFIRM,
  EXAMPLE_RESET_REQUEST,
  EXAMPLE_SESSION_ID,
  EXAMPLE_SESSIONS,
  EXAMPLE_SIGNUP,
  EXAMPLE_UNHEALTHY,
  EXAMPLE_UPDATE_PROFILE,
  EXAMPLE_USER_RESPONSE,
  EXAMPLE_SECOND_FACTOR_CHALLENGE,
  EXAMPLE_SECOND_FACTOR_LOGIN,
  EXAMPLE_START_TOTP,
  EXAMPLE_TOTP_ENROLMENT,
  EXAMPLE_CONFIRM_TOTP,
  EXAMPLE_RECOVERY_CODES,
  EXAMPLE_DISABLE_TOTP,
  EXAMPLE_RENEW_RECOVERY_CODES,
} from './examples.ts';
import { clearedLoginChallengeCookie, clearedSessionCookie, DEVICE_COOKIE, DEVICE_COOKIE_PATHS, deviceCookie, LOGIN_CHALLENGE_COOKIE, loginChallengeCookie, sessionCookie } from './session-cookie.ts';

/** Names of the response body schemas (components of the OpenAPI document). */
export type ResponseSchemaName = 'UserResponse' | 'SessionsResponse' | 'Ok' | 'Health' | 'ErrorResponse' | 'SecondFactorChallenge' | 'SecondFactorLoginResponse' | 'TotpEnrolment' | 'RecoveryCodes' | 'PasskeysResponse' | 'PasskeyResponse' | 'PasskeyOptionsResponse' | 'PasskeyRegistrationOptionsResponse';

/** One documented response of a route. */
export interface DocumentedResponse {
  readonly description: string;
  readonly body: ResponseSchemaName;
  /** A body of that schema, as the operation answers it (the OpenAPI document shows it). */
  readonly example: unknown;
  /** Whether the answer sets a fresh session cookie or clears it. */
  readonly cookie?: 'set' | 'clear';
  /** Further headers of the answer, as OpenAPI header objects by name. */
  readonly headers?: Readonly<Record<string, unknown>>;
  /**
   * An ErrorResponse's every `code` this operation may answer with this status, beyond those its
   * traits imply (a session's `unauthenticated`, a changing operation's `cross_site`: see
   * `routeResponses` of the discovery package). The documents list them per operation, and a test
   * holds them to the codes calling the operation gives.
   */
  readonly codes?: readonly ErrorCode[];
}

/** What an operation produces when it succeeds; failures are thrown and mapped in one place. */
export interface OperationResult {
  readonly status: number;
  readonly body: unknown;
  readonly setCookie?: string | readonly string[];
  /** The quota a limited operation's request left (the `RateLimit` headers). */
  readonly limits?: readonly RateLimitStatus[];
}

/** What every route says, whether or not it takes a body. */
interface RouteFields {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path; a segment `{name}` matches any one segment, which `request.param(name)` reads. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tag: 'accounts' | 'contact' | 'system';
  /**
   * Whether the operation changes state (counts a limit, starts or ends a session, stores anything).
   * Such an operation refuses cross-site browser requests (403) and bodies a form could send (400)
   * before it does anything else (see cross-site.ts); every method but GET must say `true`.
   */
  readonly changesState: boolean;
  /** `session`: the operation needs the `sl_session` cookie. */
  readonly auth: 'public' | 'session';
  /**
   * For a public operation that a session's cookie changes (it keeps that session): why a client
   * should send the cookie along when it has one. The documents then show the cookie in the example
   * and say this, and OpenAPI marks the cookie optional.
   */
  readonly cookieAdvice?: string;
  /** The operation reads the `sl_login` cookie (a login's second step): the documents show it in the command. */
  readonly loginChallenge?: boolean;
  /** The per-client rate limit the operation counts against, if any. */
  readonly limited?: LimitedOperation;
  /** Further limits that may count a request after `limited` (their RateLimit policies follow its own). */
  readonly alsoLimited?: readonly string[];
  /**
   * Each `{name}` segment of `path`: what it holds and a value the documents show (OpenAPI's
   * parameter `example`, so tools that call every operation can fill it in). The OpenAPI document
   * refuses to build when a segment has no entry.
   */
  readonly pathParameters?: Readonly<Record<string, PathParameter>>;
  /**
   * Success and the operation's own errors. The generic ones follow from the fields above: a body
   * adds 400, 413 and 415; a limit adds 429; every operation may answer 500 and 503.
   */
  readonly responses: Readonly<Record<string, DocumentedResponse>>;
  readonly run: (accounts: Accounts, request: OperationRequest) => Promise<OperationResult>;
}

/** A `{name}` segment of a route's path. */
export interface PathParameter {
  readonly description: string;
  readonly example: string;
}

/** A zod schema of the core, as `parseRequest` takes it. */
export type RequestSchema = Parameters<typeof parseRequest>[0];

/**
 * An operation that takes a JSON body names the core schema that parses it, whose fields and bounds
 * every document lists, and a body of that schema the documents show as their example; one without
 * a body names neither.
 */
type RequestBodyFields =
  | { readonly requestBody: RequestSchema; readonly requestExample: unknown }
  | { readonly requestBody?: undefined; readonly requestExample?: undefined };

/** One operation of the API. */
export type ApiRoute = RouteFields & RequestBodyFields;

const userResponse = (status: number, user: User, setCookie?: string | readonly string[], limits?: readonly RateLimitStatus[]): OperationResult => ({
  status,
  ...(limits ? { limits } : {}),
  body: { ok: true, user: { id: user.id, name: user.name, email: user.email, emailVerified: user.emailVerified } },
  ...(setCookie ? { setCookie } : {}),
});

const SESSION_ENDED = 'The session cookie is missing, unknown or expired; the cookie is cleared.';

/** The route table: every operation, its path, method, limits, body and documented responses. */
export const API_ROUTES: readonly ApiRoute[] = [
  {
    method: 'GET',
    path: '/api/health',
    operationId: 'getHealth',
    summary: 'Health check',
    description: 'Reports whether the service and its store answer.',
    tag: 'system',
    changesState: false,
    auth: 'public',
    responses: {
      '200': { description: 'The service and its store answer.', body: 'Health', example: EXAMPLE_HEALTH },
      '503': { description: 'The store does not answer (`ok` false, `status` "unavailable").', body: 'Health', example: EXAMPLE_UNHEALTHY },
    },
    run: async (accounts) => {
      const health = await accounts.health();
      return { status: health.ok ? 200 : 503, body: health };
    },
  },
  {
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
      const { user, session, device, limits } = await accounts.signup(request.bodyReader(), request.meta());
      return userResponse(201, user, [sessionCookie(session.token, session.maxAgeSeconds), deviceCookie(device.proof, device.maxAgeSeconds, request.base)], limits);
    },
  },
  {
    method: 'POST',
    path: '/api/login',
    operationId: 'login',
    summary: 'Log in',
    description: `Checks the credentials and starts a fresh session; a session cookie sent along is ended first. A login from a browser without the account’s device cookie mails the account a new-device security notice (unless turned off). For an account with two-factor authentication on, the right password starts no session: the answer is 202 with \`secondFactor\` and an \`${LOGIN_CHALLENGE_COOKIE}\` cookie (${LOGIN_CHALLENGE_TTL_MS / 60_000} minutes, once), and \`POST /api/login/second-factor\` finishes the login.`,
    tag: 'accounts',
    changesState: true,
    auth: 'public',
    limited: 'login',
    alsoLimited: [ACCOUNT_LOGIN_POLICY, DEVICE_LOGIN_POLICY],
    requestBody: LoginRequest,
    requestExample: EXAMPLE_LOGIN,
    responses: {
      '200': { description: 'Signed in with a fresh session.', body: 'UserResponse', example: EXAMPLE_USER_RESPONSE, cookie: 'set' },
      '202': {
        description: `The password is right and the account has two-factor authentication on: no session yet. \`secondFactor.methods\` says what finishes the login at \`POST /api/login/second-factor\`; the \`${LOGIN_CHALLENGE_COOKIE}\` cookie carries the challenge there.`,
        body: 'SecondFactorChallenge',
        example: EXAMPLE_SECOND_FACTOR_CHALLENGE,
        headers: {
          'Set-Cookie': {
            description: `\`${loginChallengeCookie('<token>', LOGIN_CHALLENGE_TTL_MS / 1000)}\` (under a prefix, its \`Path\` is that login's), and the session cookie cleared.`,
            required: true,
            schema: { type: 'string', pattern: `^${LOGIN_CHALLENGE_COOKIE}=[^;]+;` },
          },
        },
      },
      '401': { description: 'Invalid e-mail or password (the same answer for both).', body: 'ErrorResponse', example: ERROR_EXAMPLES.invalidCredentials, codes: ['invalid_credentials'] },
    },
    run: async (accounts, request) => {
      const result = await accounts.login(request.bodyReader(), request.meta());
      if ('secondFactor' in result) {
        const { token, maxAgeSeconds, methods, expiresAt } = result.secondFactor;
        return {
          status: 202,
          body: { ok: true, secondFactor: { methods, expiresAt: expiresAt.toISOString() } },
          setCookie: [loginChallengeCookie(token, maxAgeSeconds, request.base), clearedSessionCookie()],
          limits: result.limits,
        };
      }
      const { user, session, device, limits } = result;
      return userResponse(200, user, [sessionCookie(session.token, session.maxAgeSeconds), deviceCookie(device.proof, device.maxAgeSeconds, request.base)], limits);
    },
  },
  {
    method: 'POST',
    path: '/api/login/second-factor',
    operationId: 'loginSecondFactor',
    summary: 'Finish a login with a second factor',
    description: `The second step of a login that answered 202: a \`code\` from the authenticator app (6 digits, 30-second steps, one step either side accepted, each code once) or one \`recoveryCode\` (each once, whatever the account’s factor, a passkey’s included; a notice is mailed and \`recoveryCodesLeft\` says how many remain), with the \`${LOGIN_CHALLENGE_COOKIE}\` cookie the first step set. Answers as a login does. ${MAX_CHALLENGE_FAILURES} wrong codes end the challenge (log in again); wrong codes are also limited per account, whatever browser, device cookie or session sends them; once they are spent a recovery code is still checked, under a bound of its own.`,
    tag: 'accounts',
    changesState: true,
    auth: 'public',
    loginChallenge: true,
    limited: 'secondFactor',
    alsoLimited: [SECOND_FACTOR_ACCOUNT_POLICY, SECOND_FACTOR_RECOVERY_POLICY],
    requestBody: SecondFactorLoginRequest,
    requestExample: EXAMPLE_SECOND_FACTOR_LOGIN,
    responses: {
      '200': { description: 'Signed in with a fresh session (`recoveryCodesLeft` when a recovery code was used).', body: 'SecondFactorLoginResponse', example: EXAMPLE_USER_RESPONSE, cookie: 'set' },
      '401': { description: `\`invalid_code\`: the code is wrong, used already, or not this account’s. \`login_challenge_invalid\`: no \`${LOGIN_CHALLENGE_COOKIE}\` cookie, or its challenge expired, was used, or ended (a password change, a reset or a factor added or removed since voids it, and then no code is looked at); log in again.`, body: 'ErrorResponse', example: ERROR_EXAMPLES.invalidCode, codes: ['invalid_code', 'login_challenge_invalid'] },
    },
    run: async (accounts, request) => {
      const result = await accounts.loginSecondFactor(request.bodyReader(), { ...request.meta(), loginChallenge: request.loginChallenge() });
      const { user, session, device, limits } = result;
      const answer = userResponse(200, user, [sessionCookie(session.token, session.maxAgeSeconds), deviceCookie(device.proof, device.maxAgeSeconds, request.base), clearedLoginChallengeCookie(request.base)], limits);
      return result.recoveryCodesLeft === undefined ? answer : { ...answer, body: { ...(answer.body as object), recoveryCodesLeft: result.recoveryCodesLeft } };
    },
  },
  {
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
      return { status: 200, body: { ok: true }, setCookie: clearedSessionCookie() };
    },
  },
  {
    method: 'GET',
    path: '/api/me',
    operationId: 'getCurrentUser',
    summary: 'Current user',
    description: 'The user of the session cookie sent along.',
    tag: 'accounts',
    changesState: false,
    auth: 'session',
    responses: {
      '200': { description: 'The signed-in user.', body: 'UserResponse', example: EXAMPLE_USER_RESPONSE },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
    },
    run: async (accounts, request) => userResponse(200, await accounts.me({ sessionToken: request.sessionToken() })),
  },
  {
    method: 'POST',
    path: '/api/contact',
    operationId: 'sendContactMessage',
    summary: 'Send a contact message',
    description: 'Stores a message for the operators; no account needed. The e-mail address is trimmed and lower-cased, the name trimmed.',
    tag: 'contact',
    changesState: true,
    auth: 'public',
    limited: 'contact',
    requestBody: ContactRequest,
    requestExample: EXAMPLE_CONTACT,
    responses: { '200': { description: 'Message received.', body: 'Ok', example: EXAMPLE_OK } },
    run: async (accounts, request) => {
      const { limits } = await accounts.contact(request.bodyReader(), request.meta());
      return { status: 200, body: { ok: true }, limits };
    },
  },
  {
    method: 'GET',
    path: '/api/sessions',
    operationId: 'listSessions',
    summary: 'List sessions',
    description: 'The signed-in user’s sessions that have not expired, oldest first; `current` marks the one of the cookie sent along. An `id` is opaque: neither the token nor anything derived from it.',
    tag: 'accounts',
    changesState: false,
    auth: 'session',
    responses: {
      '200': { description: 'The sessions.', body: 'SessionsResponse', example: EXAMPLE_SESSIONS },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
    },
    run: async (accounts, request) => ({ status: 200, body: { ok: true, sessions: await accounts.listSessions({ sessionToken: request.sessionToken() }) } }),
  },
  {
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
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
      '404': { description: 'No session of this user has that id.', body: 'ErrorResponse', example: ERROR_EXAMPLES.sessionNotFound, codes: ['not_found'] },
    },
    run: async (accounts, request) => {
      const { current } = await accounts.endSession(request.param('id'), { sessionToken: request.sessionToken() });
      return { status: 200, body: { ok: true }, ...(current ? { setCookie: clearedSessionCookie() } : {}) };
    },
  },
  {
    method: 'POST',
    path: '/api/password',
    operationId: 'changePassword',
    summary: 'Change the password',
    description: `Sets a new password (the signup bounds) after checking the current one, ends every other session of the user and voids a pending reset link; the session of the cookie sent along stays, and mails the account a security notice (unless turned off). With two-factor authentication on, it also needs a current TOTP \`code\` in the body, unless a factor was verified for this session in the last ${STEP_UP_WINDOW_MS / 60_000} minutes (a login’s second step, or a code sent with an earlier change): 403 \`second_factor_required\` otherwise.`,
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    alsoLimited: [SESSION_PASSWORD_POLICY, SECOND_FACTOR_ACCOUNT_POLICY],
    requestBody: ChangePasswordRequest,
    requestExample: EXAMPLE_CHANGE_PASSWORD,
    responses: {
      '200': { description: 'The password changed; every other session ended.', body: 'Ok', example: EXAMPLE_OK },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
      '403': { description: 'The current password is wrong, the code is wrong (`wrong_code`) or missing with a second factor on (`second_factor_required`), or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.wrongPassword, codes: ['wrong_password', 'second_factor_required', 'wrong_code'] },
    },
    run: async (accounts, request) => {
      const { limits } = await accounts.changePassword(request.bodyReader(), request.meta());
      return { status: 200, body: { ok: true }, limits };
    },
  },
  {
    method: 'POST',
    path: '/api/password-reset',
    operationId: 'requestPasswordReset',
    summary: 'Request a password reset',
    description: `Mails a link with a reset token to the address when it is registered, and nothing otherwise; the answer is the same either way, and as fast. A token is valid for ${RESET_TOKEN_TTL_MS / 60_000} minutes and once; a new request replaces the previous token. Reset requests are also limited per address, whoever sends them.`,
    tag: 'accounts',
    changesState: true,
    auth: 'public',
    limited: 'passwordReset',
    alsoLimited: [RESET_ADDRESS_POLICY],
    requestBody: PasswordResetRequest,
    requestExample: EXAMPLE_RESET_REQUEST,
    responses: { '202': { description: 'Accepted: if the address is registered, a mail is on its way.', body: 'Ok', example: EXAMPLE_OK } },
    run: async (accounts, request) => {
      const { limits } = await accounts.requestPasswordReset(request.bodyReader(), request.meta());
      return { status: 202, body: { ok: true }, limits };
    },
  },
  {
    method: 'POST',
    path: '/api/password-reset/confirm',
    operationId: 'confirmPasswordReset',
    summary: 'Set a new password with a reset token',
    description: 'Sets the password (the signup bounds) of the account the token was mailed for, ends every session of that account, clears its failed logins and mails it a security notice (unless turned off). An unknown, used or expired token is a 400 naming `token`, and so is one that a later password change, reset or deletion voided.',
    tag: 'accounts',
    changesState: true,
    auth: 'public',
    limited: 'passwordResetConfirm',
    requestBody: PasswordResetConfirmRequest,
    requestExample: EXAMPLE_RESET_CONFIRM,
    responses: {
      '200': {
        description: 'The password is set; every session of the account ended. This browser gets the device cookie of the account: it signs in even while others’ failed logins lock the account.',
        body: 'Ok',
        example: EXAMPLE_OK,
        headers: {
          'Set-Cookie': {
            description: `The device cookie of the account, sent only to login: \`${deviceCookie('<proof>', DEVICE_PROOF_TTL_MS / 1000)}\` at the root; under a prefix, its \`Path\` is that login's (\`/accounts/api/login\`). No session starts: sign in with the new password.`,
            required: true,
            schema: { type: 'string', pattern: `^${DEVICE_COOKIE}=[^;]+;` },
          },
        },
      },
    },
    run: async (accounts, request) => {
      const { device, limits } = await accounts.confirmPasswordReset(request.bodyReader(), request.meta());
      return { status: 200, body: { ok: true }, setCookie: deviceCookie(device.proof, device.maxAgeSeconds, request.base), limits };
    },
  },
  {
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
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
    },
    run: async (accounts, request) => {
      const { user, limits } = await accounts.updateProfile(request.bodyReader(), request.meta());
      return userResponse(200, user, undefined, limits);
    },
  },
  {
    method: 'POST',
    path: '/api/email-verification',
    operationId: 'resendEmailVerification',
    summary: 'Send a new verification link',
    description: `Mails a new link that verifies the signed-in user’s address (\`emailVerified\` in the user); it replaces any link mailed before (a pending change of address included) and is valid for ${EMAIL_TOKEN_TTL_MS / 3_600_000} hours and once. An address that is verified already gets no mail (the answer is the same). Limited per client address, per account, and by the address’s inbox: when it had its share of the mail anyone can cause, the answer is 429 and the account’s link is not spent.`,
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    limited: 'emailVerification',
    alsoLimited: [EMAIL_LINK_ACCOUNT_POLICY, INBOX_POLICY],
    responses: {
      '202': { description: 'Accepted: unless the address is verified already, a link is on its way to it.', body: 'Ok', example: EXAMPLE_OK },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
    },
    run: async (accounts, request) => {
      const { limits } = await accounts.resendVerification(request.meta());
      return { status: 202, body: { ok: true }, limits };
    },
  },
  {
    method: 'POST',
    path: '/api/email-verification/confirm',
    operationId: 'confirmEmail',
    summary: 'Confirm a mailed link',
    description: 'Uses the token of a link mailed by signup, by `POST /api/email-verification` or by `POST /api/email`: verifies the address of the token’s account, or moves the account to the new address (verified) and ends every other session of it (the session of the cookie sent along stays, when it is the account’s). Answers the account’s user. An unknown, used, expired or superseded token is a 400 naming `token`; no session is needed.',
    tag: 'accounts',
    auth: 'public',
    cookieAdvice:
      'Send the session cookie along when you have one: confirming a change of address ends every other session of the account, and without the cookie yours is one of them (the verification after signup keeps every session either way).',
    changesState: true,
    limited: 'emailVerificationConfirm',
    requestBody: EmailVerificationConfirmRequest,
    requestExample: EXAMPLE_EMAIL_CONFIRM,
    responses: {
      '200': { description: 'Confirmed: the user of the token’s account, its address verified.', body: 'UserResponse', example: { ok: true, user: { ...EXAMPLE_USER_RESPONSE.user, emailVerified: true } } },
      '409': { description: 'The new address of a change became another account’s since the link was mailed; nothing changed.', body: 'ErrorResponse', example: ERROR_EXAMPLES.emailTaken, codes: ['email_taken'] },
    },
    run: async (accounts, request) => {
      const { user, limits } = await accounts.confirmEmail(request.bodyReader(), request.meta());
      return userResponse(200, user, undefined, limits);
    },
  },
  {
    method: 'POST',
    path: '/api/email',
    operationId: 'requestEmailChange',
    summary: 'Change the e-mail address',
    description: `Checks the password, then mails a link to \`newEmail\` (valid ${EMAIL_TOKEN_TTL_MS / 3_600_000} hours, once; it replaces any link mailed before) and a notice to the address the account has. The address changes only when the link is confirmed at \`POST /api/email-verification/confirm\`, if it is still free then. Every request counts against the account’s limit on mailed links (3 an hour), right password or not. The new address’s inbox takes a few mails an hour that anyone can cause (links from all accounts, signups); when others used them all, the answer is 429 and the account’s link is not spent. With two-factor authentication on, it also needs a current TOTP \`code\` in the body, unless a factor was verified for this session in the last ${STEP_UP_WINDOW_MS / 60_000} minutes (a login’s second step, or a code sent with an earlier change): 403 \`second_factor_required\` otherwise.`,
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    alsoLimited: [EMAIL_LINK_ACCOUNT_POLICY, SESSION_PASSWORD_POLICY, INBOX_POLICY, SECOND_FACTOR_ACCOUNT_POLICY],
    requestBody: EmailChangeRequest,
    requestExample: EXAMPLE_EMAIL_CHANGE,
    responses: {
      '202': { description: 'Accepted: a link is on its way to the new address.', body: 'Ok', example: EXAMPLE_OK },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
      '403': { description: 'The password is wrong, the code is wrong (`wrong_code`) or missing with a second factor on (`second_factor_required`), or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.wrongPassword, codes: ['wrong_password', 'second_factor_required', 'wrong_code'] },
      '409': { description: 'The new address is already registered.', body: 'ErrorResponse', example: ERROR_EXAMPLES.emailTaken, codes: ['email_taken'] },
    },
    run: async (accounts, request) => {
      const { limits } = await accounts.requestEmailChange(request.bodyReader(), request.meta());
      return { status: 202, body: { ok: true }, limits };
    },
  },
  {
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
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
      '403': { description: 'The password is wrong, the code is wrong (`wrong_code`) or missing with a second factor on (`second_factor_required`), or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.wrongPassword, codes: ['wrong_password', 'second_factor_required', 'wrong_code'] },
    },
    run: async (accounts, request) => {
      const { limits } = await accounts.deleteAccount(request.bodyReader(), request.meta());
      return { status: 200, body: { ok: true }, setCookie: clearedSessionCookie(), limits };
    },
  },  {
    method: 'POST',
    path: '/api/two-factor/totp',
    operationId: 'startTotp',
    summary: 'Start TOTP enrolment',
    description: 'Checks the password (and, when a passkey is on already, a `recoveryCode`: adding a way to sign in needs the proof in the request) and answers a new TOTP secret: `otpauthUri` (show it as a QR code for an authenticator app) and `secret` (base32, to type in). Nothing changes until `POST /api/two-factor/totp/confirm` sends a code of it; a new start replaces an unconfirmed secret. The secret is stored encrypted and never shown again.',
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    alsoLimited: [SESSION_PASSWORD_POLICY, SECOND_FACTOR_ACCOUNT_POLICY, SECOND_FACTOR_RECOVERY_POLICY],
    requestBody: StartTotpRequest,
    requestExample: EXAMPLE_START_TOTP,
    responses: {
      '200': { description: 'The secret to enrol.', body: 'TotpEnrolment', example: EXAMPLE_TOTP_ENROLMENT },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
      '403': { description: 'The password is wrong (`wrong_password`); with a passkey on, the recovery code is wrong (`wrong_code`) or missing (`second_factor_required`); or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.wrongPassword, codes: ['wrong_password', 'second_factor_required', 'wrong_code'] },
      '409': { description: 'TOTP is on already (`two_factor_state`): turn it off first.', body: 'ErrorResponse', example: ERROR_EXAMPLES.twoFactorOn, codes: ['two_factor_state'] },
      '503': { description: 'No key to encrypt secrets is configured (`two_factor_unavailable`).', body: 'ErrorResponse', example: ERROR_EXAMPLES.twoFactorUnavailable, codes: ['two_factor_unavailable'] },
    },
    run: async (accounts, request) => {
      const { otpauthUri, secret, limits } = await accounts.startTotp(request.bodyReader(), request.meta());
      return { status: 200, body: { ok: true, otpauthUri, secret }, limits };
    },
  },
  {
    method: 'POST',
    path: '/api/two-factor/totp/confirm',
    operationId: 'confirmTotp',
    summary: 'Turn TOTP on',
    description: `Turns TOTP on with a current \`code\` of the secret \`POST /api/two-factor/totp\` answered, and answers ${RECOVERY_CODE_COUNT} recovery codes, shown this once (each signs in once instead of a code). Every other session of the account ends, and a security notice is mailed.`,
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    alsoLimited: [SECOND_FACTOR_ACCOUNT_POLICY],
    requestBody: ConfirmTotpRequest,
    requestExample: EXAMPLE_CONFIRM_TOTP,
    responses: {
      '200': { description: 'TOTP is on; the recovery codes.', body: 'RecoveryCodes', example: EXAMPLE_RECOVERY_CODES },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
      '403': { description: 'The code is wrong (`wrong_code`), or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.wrongCode, codes: ['wrong_code'] },
      '409': { description: 'No enrolment started, or TOTP is on already (`two_factor_state`).', body: 'ErrorResponse', example: ERROR_EXAMPLES.twoFactorOn, codes: ['two_factor_state'] },
    },
    run: async (accounts, request) => {
      const { recoveryCodes, limits } = await accounts.confirmTotp(request.bodyReader(), request.meta());
      return { status: 200, body: { ok: true, recoveryCodes }, limits };
    },
  },
  {
    method: 'DELETE',
    path: '/api/two-factor/totp',
    operationId: 'disableTotp',
    summary: 'Turn TOTP off',
    description: 'Turns TOTP off and deletes the recovery codes (they stay while a passkey is still on), after the password and a current `code` or a `recoveryCode` in this body: removing a way to sign in needs the proof in the request, a factor verified earlier for this session is not enough. Every other session of the account ends, and a security notice is mailed.',
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    alsoLimited: [SESSION_PASSWORD_POLICY, SECOND_FACTOR_ACCOUNT_POLICY],
    requestBody: DisableTotpRequest,
    requestExample: EXAMPLE_DISABLE_TOTP,
    responses: {
      '200': { description: 'TOTP is off.', body: 'Ok', example: EXAMPLE_OK },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
      '403': { description: 'The password is wrong (`wrong_password`), the code or recovery code is wrong (`wrong_code`) or missing (`second_factor_required`), or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.proofNeedsFactor, codes: ['wrong_password', 'second_factor_required', 'wrong_code'] },
      '409': { description: 'TOTP is not on (`two_factor_state`).', body: 'ErrorResponse', example: ERROR_EXAMPLES.twoFactorOff, codes: ['two_factor_state'] },
    },
    run: async (accounts, request) => {
      const { limits } = await accounts.disableTotp(request.bodyReader(), request.meta());
      return { status: 200, body: { ok: true }, limits };
    },
  },
  {
    method: 'POST',
    path: '/api/two-factor/recovery-codes',
    operationId: 'renewRecoveryCodes',
    summary: 'Renew the recovery codes',
    description: `Replaces the recovery codes with ${RECOVERY_CODE_COUNT} new ones, shown this once; the old ones stop working. Needs a current TOTP \`code\`, or a factor verified for this session in the last ${STEP_UP_WINDOW_MS / 60_000} minutes. A security notice is mailed.`,
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    alsoLimited: [SECOND_FACTOR_ACCOUNT_POLICY],
    requestBody: RenewRecoveryCodesRequest,
    requestExample: EXAMPLE_RENEW_RECOVERY_CODES,
    responses: {
      '200': { description: 'The new recovery codes.', body: 'RecoveryCodes', example: EXAMPLE_RECOVERY_CODES },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
      '403': { description: 'The code is wrong (`wrong_code`) or missing (`second_factor_required`), or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.secondFactorRequired, codes: ['second_factor_required', 'wrong_code'] },
      '409': { description: 'No second factor is on (`two_factor_state`).', body: 'ErrorResponse', example: ERROR_EXAMPLES.twoFactorOff, codes: ['two_factor_state'] },
    },
    run: async (accounts, request) => {
      const { recoveryCodes, limits } = await accounts.renewRecoveryCodes(request.bodyReader(), request.meta());
      return { status: 200, body: { ok: true, recoveryCodes }, limits };
    },
  },
  {
    method: 'POST',
    path: '/api/passkeys/registration-options',
    operationId: 'passkeyRegistrationOptions',
    summary: 'Start registering a passkey',
    description: `WebAuthn options for \`navigator.credentials.create()\`, for the signed-in user, once this body proves the owner: the \`password\`, and with a second factor on also a current \`code\`, a \`recoveryCode\` (used up) or \`passkey\` (an answer to \`POST /api/passkeys/step-up-options\`); a session alone, or a factor verified earlier for it, is not enough. Ask the device only after this answered 200. A discoverable passkey with user verification, on the relying party of the service’s configured origin (\`PUBLIC_URL\`). The challenge works once, within ${PASSKEY_CHALLENGE_TTL_MS / 60_000} minutes, and only for this account; finish with \`POST /api/passkeys\`.`,
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    alsoLimited: [PASSKEY_OPTIONS_SESSION_POLICY, SESSION_PASSWORD_POLICY, SECOND_FACTOR_ACCOUNT_POLICY, SECOND_FACTOR_RECOVERY_POLICY],
    requestBody: PasskeyProofRequest,
    requestExample: EXAMPLE_PASSKEY_PROOF,
    responses: {
      '200': { description: 'The options; the challenge is stored (by digest) until it is answered or expires (an account keeps its newest 10: an older one is then refused as expired).', body: 'PasskeyRegistrationOptionsResponse', example: EXAMPLE_REGISTRATION_OPTIONS },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
      '403': { description: 'The password is wrong (`wrong_password`); with a second factor on, the code, recovery code or passkey answer is wrong (`wrong_code`) or missing (`second_factor_required`); or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.proofNeedsFactor, codes: ['wrong_password', 'second_factor_required', 'wrong_code'] },
    },
    run: async (accounts, request) => {
      const { options, limits } = await accounts.passkeyRegistrationOptions(request.bodyReader(), request.meta());
      return { status: 200, body: { ok: true, options }, limits };
    },
  },
  {
    method: 'POST',
    path: '/api/passkeys',
    operationId: 'registerPasskey',
    summary: 'Register a passkey',
    description:
      `Verifies what the browser answered to the registration options (the origin, the relying party, the challenge, user verification) and adds the passkey to the signed-in account (the owner’s proof went with the options). Every other session of the account ends (the one of the cookie sent along stays), and a security notice is mailed (unless turned off). When this passkey is the account’s first second factor, the answer carries ${RECOVERY_CODE_COUNT} \`recoveryCodes\`, shown this once: each finishes a login once instead of the passkey.`,
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    requestBody: PasskeyRegistrationRequest,
    requestExample: EXAMPLE_PASSKEY_REGISTRATION,
    responses: {
      '201': { description: 'The passkey is added (with `recoveryCodes` when it is the first factor).', body: 'PasskeyResponse', example: EXAMPLE_FIRST_PASSKEY_RESPONSE },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
    },
    run: async (accounts, request) => ({ status: 201, body: { ok: true, ...(await accounts.registerPasskey(request.bodyReader(), request.meta())) } }),
  },
  {
    method: 'GET',
    path: '/api/passkeys',
    operationId: 'listPasskeys',
    summary: 'List passkeys',
    description: 'The signed-in user’s passkeys, oldest first.',
    tag: 'accounts',
    auth: 'session',
    changesState: false,
    responses: {
      '200': { description: 'The passkeys.', body: 'PasskeysResponse', example: EXAMPLE_PASSKEYS },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
    },
    run: async (accounts, request) => ({ status: 200, body: { ok: true, passkeys: await accounts.listPasskeys({ sessionToken: request.sessionToken() }) } }),
  },
  {
    method: 'PATCH',
    path: '/api/passkeys/{id}',
    operationId: 'renamePasskey',
    summary: 'Rename a passkey',
    description: 'Sets the name of one of the signed-in user’s passkeys (trimmed, 1 to 64 characters).',
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    pathParameters: { id: { description: 'The `id` of one of the passkeys that `GET /api/passkeys` lists.', example: EXAMPLE_PASSKEY.id } },
    requestBody: PasskeyRenameRequest,
    requestExample: EXAMPLE_PASSKEY_RENAME,
    responses: {
      '200': { description: 'The passkey, renamed.', body: 'PasskeyResponse', example: { ok: true, passkey: { ...EXAMPLE_PASSKEY, name: EXAMPLE_PASSKEY_RENAME.name } } },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
      '404': { description: 'No passkey of this user has that id.', body: 'ErrorResponse', example: ERROR_EXAMPLES.passkeyNotFound, codes: ['not_found'] },
    },
    run: async (accounts, request) => ({ status: 200, body: { ok: true, passkey: await accounts.renamePasskey(request.param('id'), request.bodyReader(), request.meta()) } }),
  },
  {
    method: 'DELETE',
    path: '/api/passkeys/{id}',
    operationId: 'removePasskey',
    summary: 'Remove a passkey',
    description: 'Removes one of the signed-in user’s passkeys once this body proves the owner, as for `POST /api/passkeys/registration-options`: the `password`, and with a second factor on (a passkey is one) a current `code`, a `recoveryCode` or `passkey` (an answer to `POST /api/passkeys/step-up-options`). It no longer signs in. Every other session of the account ends (the one of the cookie sent along stays), and a security notice is mailed (unless turned off); with the account’s last factor go its recovery codes.',
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    alsoLimited: [SESSION_PASSWORD_POLICY, SECOND_FACTOR_ACCOUNT_POLICY, SECOND_FACTOR_RECOVERY_POLICY],
    pathParameters: { id: { description: 'The `id` of one of the passkeys that `GET /api/passkeys` lists.', example: EXAMPLE_PASSKEY.id } },
    requestBody: PasskeyProofRequest,
    requestExample: EXAMPLE_PASSKEY_PROOF,
    responses: {
      '200': { description: 'The passkey is gone.', body: 'Ok', example: EXAMPLE_OK },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
      '403': { description: 'The password is wrong (`wrong_password`); the code, recovery code or passkey answer is wrong (`wrong_code`) or missing (`second_factor_required`); or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.proofNeedsFactor, codes: ['wrong_password', 'second_factor_required', 'wrong_code'] },
      '404': { description: 'No passkey of this user has that id.', body: 'ErrorResponse', example: ERROR_EXAMPLES.passkeyNotFound, codes: ['not_found'] },
    },
    run: async (accounts, request) => {
      const { limits } = await accounts.removePasskey(request.param('id'), request.bodyReader(), request.meta());
      return { status: 200, body: { ok: true }, limits };
    },
  },
  {
    method: 'POST',
    path: '/api/passkeys/sign-in-options',
    operationId: 'passkeySignInOptions',
    summary: 'Start signing in with a passkey',
    description: `WebAuthn options for \`navigator.credentials.get()\` with a discoverable passkey: no address is typed, the browser offers the passkeys it holds for the service. The challenge works once, within ${PASSKEY_CHALLENGE_TTL_MS / 60_000} minutes; finish with \`POST /api/passkeys/sign-in\`.`,
    tag: 'accounts',
    auth: 'public',
    changesState: true,
    limited: 'passkeySignIn',
    alsoLimited: [PASSKEY_SIGN_IN_TOTAL_POLICY],
    responses: {
      '200': { description: 'The options; the challenge is stored (by digest) until it is answered or expires.', body: 'PasskeyOptionsResponse', example: EXAMPLE_SIGN_IN_OPTIONS },
    },
    run: async (accounts, request) => {
      const { options, limits } = await accounts.passkeySignInOptions(request.meta());
      return { status: 200, body: { ok: true, options }, limits };
    },
  },
  {
    method: 'POST',
    path: '/api/passkeys/sign-in',
    operationId: 'signInWithPasskey',
    summary: 'Sign in with a passkey',
    description:
      'Verifies what the browser answered to the sign-in options (the origin, the relying party, the challenge, the signature, user verification, a signature counter that moved forward) and starts a fresh session of the passkey’s account, as a login does: a session cookie sent along is ended first, and a sign-in from a browser without the account’s device cookie mails a new-device notice (unless turned off). The device cookie is set for this path and for the login’s (a browser that only ever logged in with the password has none here yet: its first passkey sign-in counts as a new device).',
    tag: 'accounts',
    auth: 'public',
    changesState: true,
    limited: 'passkeySignIn',
    requestBody: PasskeySignInRequest,
    requestExample: EXAMPLE_PASSKEY_SIGN_IN,
    responses: {
      '200': { description: 'Signed in with a fresh session.', body: 'UserResponse', example: EXAMPLE_USER_RESPONSE, cookie: 'set' },
      '401': {
        description: 'The passkey was not accepted: unknown or removed, a challenge used, expired or not a sign-in’s, a bad signature, no user verification, or a counter that went backwards (the same answer for all).',
        body: 'ErrorResponse',
        example: ERROR_EXAMPLES.passkeyRefused,
        codes: ['invalid_credentials'],
      },
    },
    run: async (accounts, request) => {
      const { user, session, device, limits } = await accounts.signInWithPasskey(request.bodyReader(), request.meta());
      // The device cookie for both sign-ins: a later login with the password from this browser is no new device either.
      const devices = DEVICE_COOKIE_PATHS.map((path) => deviceCookie(device.proof, device.maxAgeSeconds, request.base, path));
      return userResponse(200, user, [sessionCookie(session.token, session.maxAgeSeconds), ...devices], limits);
    },
  },
  {
    method: 'POST',
    path: '/api/login/passkey-options',
    operationId: 'passkeyLoginOptions',
    summary: 'Start a login’s second step with a passkey',
    description: `For a login that answered 202 (\`secondFactor.methods\` has \`passkey\`): WebAuthn options for \`navigator.credentials.get()\` naming the account’s passkeys. Send the \`sl_login\` cookie along (a browser does: its path is the login’s). The challenge works once, within ${PASSKEY_CHALLENGE_TTL_MS / 60_000} minutes; finish with \`POST /api/login/passkey\`.`,
    tag: 'accounts',
    auth: 'public',
    changesState: true,
    limited: 'passkeySignIn',
    responses: {
      '200': { description: 'The options.', body: 'PasskeyOptionsResponse', example: EXAMPLE_SIGN_IN_OPTIONS },
      '401': { description: 'No login challenge, or one unknown, used or expired: log in again.', body: 'ErrorResponse', example: ERROR_EXAMPLES.loginChallengeInvalid, codes: ['login_challenge_invalid'] },
    },
    run: async (accounts, request) => {
      const { options, limits } = await accounts.passkeyLoginOptions({ ...request.meta(), loginChallenge: request.loginChallenge() });
      return { status: 200, body: { ok: true, options }, limits };
    },
  },
  {
    method: 'POST',
    path: '/api/login/passkey',
    operationId: 'loginWithPasskey',
    summary: 'Finish a login with a passkey',
    description:
      'The second step of a login that answered 202, with one of the account’s passkeys (the answer of `navigator.credentials.get()` to `POST /api/login/passkey-options`): the session starts as a login’s does (device cookie, new-device notice), and the `sl_login` cookie is cleared. A wrong answer counts against the challenge and the account, as a wrong code does.',
    tag: 'accounts',
    auth: 'public',
    changesState: true,
    limited: 'passkeySignIn',
    // Wrong answers count as wrong codes do; past the account's spent bound, under the recovery one.
    alsoLimited: [SECOND_FACTOR_ACCOUNT_POLICY, SECOND_FACTOR_RECOVERY_POLICY],
    requestBody: PasskeySignInRequest,
    requestExample: EXAMPLE_PASSKEY_SIGN_IN,
    responses: {
      '200': { description: 'Signed in with a fresh session.', body: 'UserResponse', example: EXAMPLE_USER_RESPONSE, cookie: 'set' },
      '401': { description: 'No valid login challenge (log in again), or the passkey’s answer was refused.', body: 'ErrorResponse', example: ERROR_EXAMPLES.loginChallengeInvalid, codes: ['login_challenge_invalid', 'invalid_code'] },
    },
    run: async (accounts, request) => {
      const { user, session, device, limits } = await accounts.loginWithPasskey(request.bodyReader(), { ...request.meta(), loginChallenge: request.loginChallenge() });
      const devices = DEVICE_COOKIE_PATHS.map((path) => deviceCookie(device.proof, device.maxAgeSeconds, request.base, path));
      return userResponse(200, user, [sessionCookie(session.token, session.maxAgeSeconds), ...devices, clearedLoginChallengeCookie(request.base)], limits);
    },
  },
  {
    method: 'POST',
    path: '/api/passkeys/step-up-options',
    operationId: 'passkeyStepUpOptions',
    summary: 'Start a step-up with a passkey',
    description: `With a second factor on, the owner’s changes (password, address, deletion, adding or removing a passkey, turning a factor off) need a factor verified within the last few minutes. These are WebAuthn options for \`navigator.credentials.get()\` naming the account’s passkeys; the challenge works once, within ${PASSKEY_CHALLENGE_TTL_MS / 60_000} minutes; finish with \`POST /api/passkeys/step-up\`.`,
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    alsoLimited: [PASSKEY_OPTIONS_SESSION_POLICY],
    responses: {
      '200': { description: 'The options.', body: 'PasskeyOptionsResponse', example: EXAMPLE_SIGN_IN_OPTIONS },
      '401': { description: SESSION_ENDED, body: 'ErrorResponse', example: ERROR_EXAMPLES.unauthenticated, cookie: 'clear' },
      '404': { description: 'The account has no passkey.', body: 'ErrorResponse', example: ERROR_EXAMPLES.passkeyNotFound, codes: ['not_found'] },
    },
    run: async (accounts, request) => {
      const { options, limits } = await accounts.passkeyStepUpOptions({ sessionToken: request.sessionToken() });
      return { status: 200, body: { ok: true, options }, limits };
    },
  },
  {
    method: 'POST',
    path: '/api/passkeys/step-up',
    operationId: 'stepUpWithPasskey',
    summary: 'Step up with a passkey',
    description: 'Verifies one of the account’s passkeys for the session of the cookie sent along: its owner’s changes then go through for the step-up’s window.',
    tag: 'accounts',
    auth: 'session',
    changesState: true,
    requestBody: PasskeySignInRequest,
    requestExample: EXAMPLE_PASSKEY_SIGN_IN,
    responses: {
      '200': { description: 'The session stepped up.', body: 'Ok', example: EXAMPLE_OK },
      '401': { description: 'The session is missing, unknown or expired, or the passkey was not accepted.', body: 'ErrorResponse', example: ERROR_EXAMPLES.passkeyRefused, codes: ['invalid_credentials'] },
    },
    run: async (accounts, request) => {
      await accounts.stepUpWithPasskey(request.bodyReader(), request.meta());
      return { status: 200, body: { ok: true } };
    },
  },
];

/** `POST /api/login` for a limited operation, from the table. */
export function routeOf(operation: LimitedOperation): ApiRoute {
  const route = API_ROUTES.find((r) => r.limited === operation);
  if (!route) throw new Error(`no route counts against the ${operation} limit`);
  return route;
}
