/**
 * What identifies the account and proves it is the owner's: the password (changing it, resetting it
 * by a mailed link) and the e-mail address (verifying it, changing it).
 */
import { ChangePasswordRequest, DEVICE_PROOF_TTL_MS, EMAIL_LINK_ACCOUNT_POLICY, EMAIL_TOKEN_TTL_MS, EmailChangeRequest, EmailVerificationConfirmRequest, INBOX_POLICY, PasswordResetConfirmRequest, PasswordResetRequest, RESET_ADDRESS_POLICY, RESET_TOKEN_TTL_MS, SECOND_FACTOR_ACCOUNT_POLICY, SESSION_PASSWORD_POLICY, STEP_UP_WINDOW_MS } from '@sl-accounts/service/core';
import { ERROR_EXAMPLES, EXAMPLE_CHANGE_PASSWORD, EXAMPLE_EMAIL_CHANGE, EXAMPLE_EMAIL_CONFIRM, EXAMPLE_OK, EXAMPLE_RESET_CONFIRM, EXAMPLE_RESET_REQUEST, EXAMPLE_USER_RESPONSE } from '../examples.ts';
import { DEVICE_COOKIE, deviceCookie } from '../session-cookie.ts';
import { ACCOUNT_CHANGED, okAnswer, PASSWORD_AND_CODE_REFUSED, PROOF_CODES, userAnswer } from './responses.ts';
import type { ApiRoute } from './route.ts';

export const changePassword: ApiRoute = {
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
    '403': { description: 'The current password is wrong, the code is wrong (`wrong_code`) or missing with a second factor on (`second_factor_required`), or the request came from another site’s page.', body: 'ErrorResponse', example: ERROR_EXAMPLES.wrongPassword, codes: PROOF_CODES },
    '409': ACCOUNT_CHANGED,
  },
  run: async (accounts, request) => {
    const { limits } = await accounts.changePassword(request.bodyReader(), request.meta());
    return okAnswer(200, {}, limits);
  },
};

export const requestPasswordReset: ApiRoute = {
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
    return okAnswer(202, {}, limits);
  },
};

export const confirmPasswordReset: ApiRoute = {
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
    return { ...okAnswer(200, {}, limits), setCookie: deviceCookie(device.proof, device.maxAgeSeconds, request.base) };
  },
};

export const resendEmailVerification: ApiRoute = {
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
  responses: { '202': { description: 'Accepted: unless the address is verified already, a link is on its way to it.', body: 'Ok', example: EXAMPLE_OK } },
  run: async (accounts, request) => {
    const { limits } = await accounts.resendVerification(request.meta());
    return okAnswer(202, {}, limits);
  },
};

export const confirmEmail: ApiRoute = {
  method: 'POST',
  path: '/api/email-verification/confirm',
  operationId: 'confirmEmail',
  summary: 'Confirm a mailed link',
  description: 'Uses the token of a link mailed by signup, by `POST /api/email-verification` or by `POST /api/email`: verifies the address of the token’s account, or moves the account to the new address (verified) and ends every other session of it (the session of the cookie sent along stays, when it is the account’s). Answers the account’s user. An unknown, used, expired or superseded token (a change of credential, a lock or a factor removed since it was mailed supersedes it) is a 400 naming `token`. A link that would verify the address or move the account counts only with one of the account’s live sessions in the cookie (a link proves the inbox, not who holds the account): else 403 `sign_in_required` and nothing changes, the link included.',
  tag: 'accounts',
  auth: 'public',
  cookieAdvice:
    'Send the account’s session cookie: without one of its live sessions a link that would verify or move the account changes nothing (403 `sign_in_required`). Confirming a change of address ends every other session of the account; the verification keeps every session.',
  changesState: true,
  limited: 'emailVerificationConfirm',
  requestBody: EmailVerificationConfirmRequest,
  requestExample: EXAMPLE_EMAIL_CONFIRM,
  responses: {
    '200': { description: 'Confirmed: the user of the token’s account, its address verified.', body: 'UserResponse', example: { ok: true, user: { ...EXAMPLE_USER_RESPONSE.user, emailVerified: true } } },
    '403': {
      description: 'The link would verify the account’s address or move the account, and the cookie holds none of the account’s live sessions: a link proves the inbox, not who holds the account. Nothing changed, the link included: sign in to the account in this browser and confirm again; an inbox owner who did not make the account resets its password instead, which removes every way in its maker added.',
      body: 'ErrorResponse',
      example: ERROR_EXAMPLES.signInRequired,
      codes: ['sign_in_required'],
    },
    '409': { description: 'The new address of a change became another account’s since the link was mailed; nothing changed.', body: 'ErrorResponse', example: ERROR_EXAMPLES.emailTaken, codes: ['email_taken'] },
  },
  run: async (accounts, request) => {
    const { user, limits } = await accounts.confirmEmail(request.bodyReader(), request.meta());
    return userAnswer(200, user, undefined, limits);
  },
};

export const requestEmailChange: ApiRoute = {
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
    '403': PASSWORD_AND_CODE_REFUSED,
    '409': { description: 'The new address is already registered (`email_taken`), or another change of the account committed while this request was checked: nothing changed; read again and retry (`account_changed`).', body: 'ErrorResponse', example: ERROR_EXAMPLES.emailTaken, codes: ['email_taken', 'account_changed'] },
  },
  run: async (accounts, request) => {
    const { limits } = await accounts.requestEmailChange(request.bodyReader(), request.meta());
    return okAnswer(202, {}, limits);
  },
};
