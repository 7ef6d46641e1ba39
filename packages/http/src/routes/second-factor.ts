/**
 * The authenticator app's second factor (TOTP) and the recovery codes: `/api/two-factor/*`.
 */
import { ConfirmTotpRequest, DisableTotpRequest, RECOVERY_CODE_COUNT, RenewRecoveryCodesRequest, SECOND_FACTOR_ACCOUNT_POLICY, SECOND_FACTOR_RECOVERY_POLICY, SESSION_PASSWORD_POLICY, StartTotpRequest } from '@sl-accounts/service/core';
import { ERROR_EXAMPLES, EXAMPLE_CONFIRM_TOTP, EXAMPLE_DISABLE_TOTP, EXAMPLE_OK, EXAMPLE_RECOVERY_CODES, EXAMPLE_RENEW_RECOVERY_CODES, EXAMPLE_START_TOTP, EXAMPLE_TOTP_ENROLMENT } from '../examples.ts';
import { okAnswer, PROOF_CODES, PROOF_REFUSED } from './responses.ts';
import type { ApiRoute } from './route.ts';

export const startTotp: ApiRoute = {
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
    '403': { description: 'The password is wrong (`wrong_password`); with a passkey on, the recovery code is wrong (`wrong_code`) or missing (`second_factor_required`); or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.wrongPassword, codes: PROOF_CODES },
    '409': { description: 'TOTP is on already (`two_factor_state`): turn it off first.', body: 'ErrorResponse', example: ERROR_EXAMPLES.twoFactorOn, codes: ['two_factor_state'] },
    '503': { description: 'No key to encrypt secrets is configured (`two_factor_unavailable`).', body: 'ErrorResponse', example: ERROR_EXAMPLES.twoFactorUnavailable, codes: ['two_factor_unavailable'] },
  },
  run: async (accounts, request) => {
    const { otpauthUri, secret, limits } = await accounts.startTotp(request.bodyReader(), request.meta());
    return okAnswer(200, { otpauthUri, secret }, limits);
  },
};

export const confirmTotp: ApiRoute = {
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
    '403': { description: 'The code is wrong (`wrong_code`), or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.wrongCode, codes: ['wrong_code'] },
    '409': { description: 'No enrolment started, or TOTP is on already (`two_factor_state`).', body: 'ErrorResponse', example: ERROR_EXAMPLES.twoFactorOn, codes: ['two_factor_state'] },
  },
  run: async (accounts, request) => {
    const { recoveryCodes, limits } = await accounts.confirmTotp(request.bodyReader(), request.meta());
    return okAnswer(200, { recoveryCodes }, limits);
  },
};

export const disableTotp: ApiRoute = {
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
    '403': { description: 'The password is wrong (`wrong_password`), the code or recovery code is wrong (`wrong_code`) or missing (`second_factor_required`), or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.proofNeedsFactor, codes: PROOF_CODES },
    '409': { description: 'TOTP is not on (`two_factor_state`), or another change of the account committed while this request was checked: nothing changed; read again and retry (`account_changed`).', body: 'ErrorResponse', example: ERROR_EXAMPLES.twoFactorOff, codes: ['two_factor_state', 'account_changed'] },
  },
  run: async (accounts, request) => {
    const { limits } = await accounts.disableTotp(request.bodyReader(), request.meta());
    return okAnswer(200, {}, limits);
  },
};

export const renewRecoveryCodes: ApiRoute = {
  method: 'POST',
  path: '/api/two-factor/recovery-codes',
  operationId: 'renewRecoveryCodes',
  summary: 'Renew the recovery codes',
  description: `Replaces the recovery codes with ${RECOVERY_CODE_COUNT} new ones, shown this once; the old ones stop working. They are a way past the second factor, so the proof is in this body: the \`password\`, and a current TOTP \`code\` or one of the old \`recoveryCode\`s (used up); a factor verified earlier for this session is not enough. A security notice is mailed.`,
  tag: 'accounts',
  auth: 'session',
  changesState: true,
  alsoLimited: [SESSION_PASSWORD_POLICY, SECOND_FACTOR_ACCOUNT_POLICY],
  requestBody: RenewRecoveryCodesRequest,
  requestExample: EXAMPLE_RENEW_RECOVERY_CODES,
  responses: {
    '200': { description: 'The new recovery codes.', body: 'RecoveryCodes', example: EXAMPLE_RECOVERY_CODES },
    '403': PROOF_REFUSED,
    '409': { description: 'No second factor is on (`two_factor_state`), or another change of the account committed while this request was checked: nothing changed; read again and retry (`account_changed`).', body: 'ErrorResponse', example: ERROR_EXAMPLES.twoFactorOff, codes: ['two_factor_state', 'account_changed'] },
  },
  run: async (accounts, request) => {
    const { recoveryCodes, limits } = await accounts.renewRecoveryCodes(request.bodyReader(), request.meta());
    return okAnswer(200, { recoveryCodes }, limits);
  },
};
