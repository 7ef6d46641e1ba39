/**
 * Passkeys (WebAuthn): registering, listing, renaming and removing them, signing in with one
 * alone, and stepping a session up with one (`/api/passkeys/*`).
 */
import { PASSKEY_CHALLENGE_TTL_MS, PASSKEY_OPTIONS_SESSION_POLICY, PASSKEY_SIGN_IN_TOTAL_POLICY, PasskeyProofRequest, PasskeyRegistrationRequest, PasskeyRenameRequest, PasskeySignInRequest, RECOVERY_CODE_COUNT, SECOND_FACTOR_ACCOUNT_POLICY, SECOND_FACTOR_RECOVERY_POLICY, SESSION_PASSWORD_POLICY } from '@sl-accounts/service/core';
import { ERROR_EXAMPLES, EXAMPLE_FIRST_PASSKEY_RESPONSE, EXAMPLE_OK, EXAMPLE_PASSKEY, EXAMPLE_PASSKEY_PROOF, EXAMPLE_PASSKEY_REGISTRATION, EXAMPLE_PASSKEY_RENAME, EXAMPLE_PASSKEY_SIGN_IN, EXAMPLE_PASSKEYS, EXAMPLE_REGISTRATION_OPTIONS, EXAMPLE_SIGN_IN_OPTIONS } from '../examples.ts';
import { DEVICE_COOKIE_PATHS } from '../session-cookie.ts';
import { ACCOUNT_CHANGED, okAnswer, PASSKEY_OPTIONS, PROOF_CODES, SIGNED_IN, signedInAnswer } from './responses.ts';
import type { ApiRoute, DocumentedResponse, PathParameter } from './route.ts';

/** The `{id}` of `/api/passkeys/{id}`. */
const PASSKEY_ID: PathParameter = { description: 'The `id` of one of the passkeys that `GET /api/passkeys` lists.', example: EXAMPLE_PASSKEY.id };

/** The 404 of an operation on one passkey. */
const NO_SUCH_PASSKEY: DocumentedResponse = { description: 'No passkey of this user has that id.', body: 'ErrorResponse', example: ERROR_EXAMPLES.passkeyNotFound, codes: ['not_found'] };

export const passkeyRegistrationOptions: ApiRoute = {
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
    '403': { description: 'The password is wrong (`wrong_password`); with a second factor on, the code, recovery code or passkey answer is wrong (`wrong_code`) or missing (`second_factor_required`); or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.proofNeedsFactor, codes: PROOF_CODES },
  },
  run: async (accounts, request) => {
    const { options, limits } = await accounts.passkeyRegistrationOptions(request.bodyReader(), request.meta());
    return okAnswer(200, { options }, limits);
  },
};

export const registerPasskey: ApiRoute = {
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
    '409': ACCOUNT_CHANGED,
  },
  run: async (accounts, request) => okAnswer(201, await accounts.registerPasskey(request.bodyReader(), request.meta())),
};

export const listPasskeys: ApiRoute = {
  method: 'GET',
  path: '/api/passkeys',
  operationId: 'listPasskeys',
  summary: 'List passkeys',
  description: 'The signed-in user’s passkeys, oldest first.',
  tag: 'accounts',
  auth: 'session',
  changesState: false,
  responses: { '200': { description: 'The passkeys.', body: 'PasskeysResponse', example: EXAMPLE_PASSKEYS } },
  run: async (accounts, request) => okAnswer(200, { passkeys: await accounts.listPasskeys({ sessionToken: request.sessionToken() }) }),
};

export const renamePasskey: ApiRoute = {
  method: 'PATCH',
  path: '/api/passkeys/{id}',
  operationId: 'renamePasskey',
  summary: 'Rename a passkey',
  description: 'Sets the name of one of the signed-in user’s passkeys (trimmed, 1 to 64 characters).',
  tag: 'accounts',
  auth: 'session',
  changesState: true,
  pathParameters: { id: PASSKEY_ID },
  requestBody: PasskeyRenameRequest,
  requestExample: EXAMPLE_PASSKEY_RENAME,
  responses: {
    '200': { description: 'The passkey, renamed.', body: 'PasskeyResponse', example: { ok: true, passkey: { ...EXAMPLE_PASSKEY, name: EXAMPLE_PASSKEY_RENAME.name } } },
    '404': NO_SUCH_PASSKEY,
  },
  run: async (accounts, request) => okAnswer(200, { passkey: await accounts.renamePasskey(request.param('id'), request.bodyReader(), request.meta()) }),
};

export const removePasskey: ApiRoute = {
  method: 'DELETE',
  path: '/api/passkeys/{id}',
  operationId: 'removePasskey',
  summary: 'Remove a passkey',
  description: 'Removes one of the signed-in user’s passkeys once this body proves the owner, as for `POST /api/passkeys/registration-options`: the `password`, and with a second factor on (a passkey is one) a current `code`, a `recoveryCode` or `passkey` (an answer to `POST /api/passkeys/step-up-options`). It no longer signs in. Every other session of the account ends (the one of the cookie sent along stays), and a security notice is mailed (unless turned off); with the account’s last factor go its recovery codes.',
  tag: 'accounts',
  auth: 'session',
  changesState: true,
  alsoLimited: [SESSION_PASSWORD_POLICY, SECOND_FACTOR_ACCOUNT_POLICY, SECOND_FACTOR_RECOVERY_POLICY],
  pathParameters: { id: PASSKEY_ID },
  requestBody: PasskeyProofRequest,
  requestExample: EXAMPLE_PASSKEY_PROOF,
  responses: {
    '200': { description: 'The passkey is gone.', body: 'Ok', example: EXAMPLE_OK },
    '409': ACCOUNT_CHANGED,
    '403': { description: 'The password is wrong (`wrong_password`); the code, recovery code or passkey answer is wrong (`wrong_code`) or missing (`second_factor_required`); or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.proofNeedsFactor, codes: PROOF_CODES },
    '404': NO_SUCH_PASSKEY,
  },
  run: async (accounts, request) => {
    const { limits } = await accounts.removePasskey(request.param('id'), request.bodyReader(), request.meta());
    return okAnswer(200, {}, limits);
  },
};

export const passkeySignInOptions: ApiRoute = {
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
    return okAnswer(200, { options }, limits);
  },
};

export const signInWithPasskey: ApiRoute = {
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
    '200': SIGNED_IN,
    '401': {
      description: 'The passkey was not accepted: unknown or removed, a challenge used, expired or not a sign-in’s, a bad signature, no user verification, or a counter that went backwards (the same answer for all).',
      body: 'ErrorResponse',
      example: ERROR_EXAMPLES.passkeyRefused,
      codes: ['invalid_credentials'],
    },
  },
  run: async (accounts, request) => {
    const signedIn = await accounts.signInWithPasskey(request.bodyReader(), request.meta());
    // The device cookie for both sign-ins: a later login with the password from this browser is no new device either.
    return signedInAnswer(200, signedIn, request.base, { devicePaths: DEVICE_COOKIE_PATHS });
  },
};

export const passkeyStepUpOptions: ApiRoute = {
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
    '200': PASSKEY_OPTIONS,
    '404': { description: 'The account has no passkey.', body: 'ErrorResponse', example: ERROR_EXAMPLES.passkeyNotFound, codes: ['not_found'] },
  },
  run: async (accounts, request) => {
    const { options, limits } = await accounts.passkeyStepUpOptions({ sessionToken: request.sessionToken() });
    return okAnswer(200, { options }, limits);
  },
};

export const stepUpWithPasskey: ApiRoute = {
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
    return okAnswer(200);
  },
};
