/**
 * Signing in with the password (`POST /api/login`) and the login's second step, with a code or a passkey
 * (`/api/login/*`, which the `sl_login` cookie is sent to).
 */
import { ACCOUNT_LOGIN_POLICY, DEVICE_LOGIN_POLICY, LOGIN_CHALLENGE_TTL_MS, LoginRequest, MAX_CHALLENGE_FAILURES, PASSKEY_CHALLENGE_TTL_MS, PasskeySignInRequest, SECOND_FACTOR_ACCOUNT_POLICY, SECOND_FACTOR_RECOVERY_POLICY, SecondFactorLoginRequest } from '@sl-accounts/service/core';
import type { OperationRequest } from '../operation-request.ts';
import { ERROR_EXAMPLES, EXAMPLE_LOGIN, EXAMPLE_PASSKEY_SIGN_IN, EXAMPLE_SECOND_FACTOR_CHALLENGE, EXAMPLE_SECOND_FACTOR_LOGIN, EXAMPLE_USER_RESPONSE } from '../examples.ts';
import { clearedLoginChallengeCookie, clearedSessionCookie, DEVICE_COOKIE_PATHS, LOGIN_CHALLENGE_COOKIE, loginChallengeCookie } from '../session-cookie.ts';
import { okAnswer, PASSKEY_OPTIONS, SIGNED_IN, signedInAnswer } from './responses.ts';
import type { ApiRoute } from './route.ts';

/** What a login's later steps pass the core: the request's meta and the `sl_login` cookie's challenge. */
const withChallenge = (request: OperationRequest) => ({ ...request.meta(), loginChallenge: request.loginChallenge() });

export const login: ApiRoute = {
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
    '200': SIGNED_IN,
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
        ...okAnswer(202, { secondFactor: { methods, expiresAt: expiresAt.toISOString() } }, result.limits),
        setCookie: [loginChallengeCookie(token, maxAgeSeconds, request.base), clearedSessionCookie()],
      };
    }
    return signedInAnswer(200, result, request.base);
  },
};

export const loginSecondFactor: ApiRoute = {
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
    const result = await accounts.loginSecondFactor(request.bodyReader(), withChallenge(request));
    const answer = signedInAnswer(200, result, request.base, { more: [clearedLoginChallengeCookie(request.base)] });
    return result.recoveryCodesLeft === undefined ? answer : { ...answer, body: { ...(answer.body as object), recoveryCodesLeft: result.recoveryCodesLeft } };
  },
};

export const passkeyLoginOptions: ApiRoute = {
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
    '200': PASSKEY_OPTIONS,
    '401': { description: 'No login challenge, or one unknown, used or expired: log in again.', body: 'ErrorResponse', example: ERROR_EXAMPLES.loginChallengeInvalid, codes: ['login_challenge_invalid'] },
  },
  run: async (accounts, request) => {
    const { options, limits } = await accounts.passkeyLoginOptions(withChallenge(request));
    return okAnswer(200, { options }, limits);
  },
};

export const loginWithPasskey: ApiRoute = {
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
    '200': SIGNED_IN,
    '401': { description: 'No valid login challenge (log in again), or the passkey’s answer was refused.', body: 'ErrorResponse', example: ERROR_EXAMPLES.loginChallengeInvalid, codes: ['login_challenge_invalid', 'invalid_code'] },
  },
  run: async (accounts, request) => {
    const signedIn = await accounts.loginWithPasskey(request.bodyReader(), withChallenge(request));
    return signedInAnswer(200, signedIn, request.base, { devicePaths: DEVICE_COOKIE_PATHS, more: [clearedLoginChallengeCookie(request.base)] });
  },
};
