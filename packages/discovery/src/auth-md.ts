/**
 * `/auth.md`: how an automated agent signs in. Operations, answers, bounds, limits and lifetimes are
 * generated from the route table and the code that enforces them, as the OpenAPI document is.
 */
import { ACCOUNT_LOGIN_LIMIT, LOGIN_CHALLENGE_TTL_MS, MAX_CHALLENGE_FAILURES, RESET_ADDRESS_LIMIT, RESET_TOKEN_TTL_MS, SESSION_TTL_MS, STEP_UP_WINDOW_MS } from '@sl-accounts/service/core';
import { API_ROUTES, BODY_LIMIT_BYTES, LOGIN_CHALLENGE_COOKIE, SESSION_COOKIE, sessionCookie, type ApiRoute } from '@sl-accounts/service/http';
import { EXAMPLE_USER_RESPONSE } from '@sl-accounts/service/http/examples';
import { routeResponses } from './openapi.ts';
import { operationName, operationWriter, section, type Place } from './operation-text.ts';
import { describeDuration, describeLimit, inertUrl, markdownLink, operationsWithAuth, prefixPaths, rateLimitTable, splitBase } from './wording.ts';
import { renderedOnce } from './rendered-once.ts';

const routeById = (operationId: string): ApiRoute => API_ROUTES.find((r) => r.operationId === operationId)!;

/**
 * Every status an operation may answer, one row per status and meaning, with the operations that
 * answer it so: the same responses the OpenAPI document lists.
 */
function statusTable(place: Place): string {
  const rows = new Map<string, { status: string; description: string; operations: string[] }>();
  for (const route of API_ROUTES) {
    for (const [status, response] of routeResponses(route)) {
      const key = `${status}\n${response.description}`;
      const row = rows.get(key) ?? { status, description: prefixPaths(response.description, place.prefix), operations: [] };
      row.operations.push(operationName(route, place));
      rows.set(key, row);
    }
  }
  const sorted = [...rows.values()].sort((a, b) => Number(a.status) - Number(b.status));
  return ['| Status | Operations | Meaning |', '|---|---|---|', ...sorted.map((r) => `| \`${r.status}\` | ${r.operations.join(', ')} | ${r.description} |`)].join('\n');
}

const renderedGuides = new Map<string, string>();

/**
 * auth.md for `requestBase`, the origin and mount path (from the request when no PUBLIC_URL is set:
 * it is made inert before use). Every operation of the route table is in it with its fields; every
 * path starts with the mount path. Rendered once for each base and name (`renderedOnce`): ~2.8 ms of
 * CPU a time.
 */
export const authMarkdown = (requestBase: string, serviceName: string): string =>
  renderedOnce(renderedGuides, [requestBase, serviceName], () => renderAuthMarkdown(requestBase, serviceName));

function renderAuthMarkdown(requestBase: string, serviceName: string): string {
  const base = inertUrl(requestBase);
  const { origin, prefix } = splitBase(base);
  const place: Place = { url: base, prefix };
  const name = (operationId: string) => operationName(routeById(operationId), place);
  const ttl = describeDuration(SESSION_TTL_MS);
  const operations = operationWriter(place);
  // Written in the order each is claimed: the named steps first, then the rest of the account's, then any other.
  const signup = operations.one('signup');
  const login = operations.one('login');
  const me = operations.one('getCurrentUser');
  const logout = operations.one('logout');
  const resetRequest = operations.one('requestPasswordReset');
  const resetConfirm = operations.one('confirmPasswordReset');
  const startTotp = operations.one('startTotp');
  const confirmTotp = operations.one('confirmTotp');
  const secondFactor = operations.one('loginSecondFactor');
  const account = operations.rest((route) => route.tag === 'accounts');
  const others = operations.rest();
  return `# auth.md: signing in to ${serviceName}

This guide is for automated agents. The machine-readable description is ${markdownLink(`${base}/openapi.json`)}. The service is at \`${base}\`: every path below is a path on \`${origin}\`${prefix ? ` and starts with the service's mount path \`${prefix}\`` : ''}, and every example is a whole command. Replace the parts in angle brackets (\`<token>\`, \`<id>\`) as the text says.

## Scheme

- **API key in a cookie.** The cookie is \`${SESSION_COOKIE}\`; its value is an opaque token. Treat it as a secret.
- The token is issued by ${name('signup')} and ${name('login')} in a \`Set-Cookie\` header:
  \`${sessionCookie('<token>', SESSION_TTL_MS / 1000)}\`
- Authenticated requests send it back: \`Cookie: ${SESSION_COOKIE}=<token>\`. The cookie is \`Secure\`: a browser-like cookie jar sends it only over HTTPS (or to localhost), so keep the token yourself if you talk plain HTTP.
- Protected operations (send the cookie): ${operationsWithAuth('session', prefix)}. Public operations: ${operationsWithAuth('public', prefix)}.
- **There is no OAuth 2.0 and no OpenID Connect**: no authorization server, no bearer token, no token endpoint, no refresh token, no client registration. Do not send an \`Authorization\` header; it is ignored.

## 1. Create an account

${signup}

The password is never trimmed. The \`201\` body is \`${JSON.stringify(EXAMPLE_USER_RESPONSE)}\`. On \`409\`, log in instead.

## 2. Log in

${login}

The e-mail address is trimmed and lower-cased, as at signup; the password is never trimmed. A \`401\` does not say whether the e-mail address or the password is wrong. A successful login ends the session whose cookie it was sent with. A login sent without the old cookie leaves that session alive until it expires or is logged out: send the old cookie along, or log it out, to end it.

## 3. Call protected operations

${me}

\`401\` means the cookie is missing, unknown or expired: log in again.

## Session lifetime

A session lasts **${ttl}** from the moment it was issued (\`Max-Age=${SESSION_TTL_MS / 1000}\`). Use does not extend it. After that, protected operations answer \`401\` and clear the cookie; log in again for a new one.

## 4. Log out

${logout}

Without a valid session the answer is \`401\` (and the cookie is cleared too). Logging out ends only the session of the cookie sent; other sessions of the account stay.

## 4a. Two-factor authentication (TOTP)

An account may turn on a second factor: an authenticator code (RFC 6238 TOTP: HMAC-SHA-1, 6 digits, 30-second steps, as every authenticator app computes it; an agent computes it from the secret with any TOTP library, e.g. \`otpauth\` or \`pyotp\`). Then ${name('login')} answers \`202\` with \`{"ok":true,"secondFactor":{"methods":["totp","recovery"],"expiresAt":"…"}}\`, no session, and a \`Set-Cookie: ${LOGIN_CHALLENGE_COOKIE}=<challenge>\` header (${describeDuration(LOGIN_CHALLENGE_TTL_MS)}, once); send that cookie and a current code to ${name('loginSecondFactor')}, which answers as a login does. An account without a second factor never sees a \`202\`.

${startTotp}

Keep \`secret\` (base32): it is shown once. Compute the current code from it and turn the factor on:

${confirmTotp}

Keep the recovery codes: each signs in once instead of a code (\`{"recoveryCode":"…"}\` below). Every other session of the account has ended.

${secondFactor}

Replace \`<6-digit code>\` with the code for the current 30-second step. A code works once: wait for the next step before sending another. Wrong codes count per challenge (${MAX_CHALLENGE_FAILURES} end it: log in again) and per account (\`429\`).

With two-factor authentication on, changing the password or the address and deleting the account also need a current \`code\` in their body, unless this session verified a factor in the last ${describeDuration(STEP_UP_WINDOW_MS)} (\`403\` with \`code\` \`second_factor_required\` otherwise). Turning the factor off, adding or removing a passkey, linking or unlinking an identity provider and renewing the recovery codes need the proof in the request itself whatever the session did before: the \`password\` and a current \`code\` or a \`recoveryCode\` (\`403\` \`wrong_password\`, \`second_factor_required\` or \`wrong_code\` otherwise).

${section('5. Sessions, password and account', `${account}\n\nThe examples follow one account: the password change takes the signup password to a new one, which the deletion then gives. A wrong password given to change the password or delete the account counts as a failed login of the account (see the rate limits below). Operations that change the account refuse browser requests from another site's page (\`403\`), as login does.`)}## 6. Forgotten password

${resetRequest}

It always answers \`202\`, registered address or not; only a registered address gets a mail. The mail links to a reset page (the operator's, or the service's own) with \`?token=<token>\`. At most ${describeLimit(RESET_ADDRESS_LIMIT)} per address (in any span of that length, wherever it starts, from any client); a \`429\` then means that a link mailed in the last ${describeDuration(RESET_TOKEN_TTL_MS)} is in the inbox, and the newest works.

${resetConfirm}

The password is set and every session of the account has ended: log in again. A token is valid for ${describeDuration(RESET_TOKEN_TTL_MS)} and once; a newer request replaces it. \`400\` with an issue on \`token\` means it is unknown, used or expired.

${section('7. Other operations', others)}## Rate limits

${rateLimitTable(prefix)}

Every JSON request counts, valid or not. Failed logins are also limited per account (e-mail address), from whatever address they come: ${ACCOUNT_LOGIN_LIMIT.limit} failed logins per ${describeDuration(ACCOUNT_LOGIN_LIMIT.windowMs)} unless the operator configured otherwise; after that even the right password gets \`429\` until the window ends. A client that signed in to the account before keeps the \`sl_device\` cookie that signup and login set, and sends it back to login: its attempts are then counted against a limit of its own (policy \`login-device\`), so others' failures cannot lock it out. Every counted answer of a limited operation, errors included, carries \`RateLimit-Policy\` and \`RateLimit\` headers (draft-ietf-httpapi-ratelimit-headers), with one list item per limit that counted it. Over a limit the answer is \`429\` with a \`Retry-After\` header: wait that many seconds before trying again.

Requests whose body is not JSON (\`400\`), and browser requests from another site's page (\`403\`), are refused before they are counted.

## Request bodies

Bodies are JSON objects (\`Content-Type: application/json\`, or any \`+json\` type) in UTF-8, at most ${BODY_LIMIT_BYTES / 1024} KiB (${BODY_LIMIT_BYTES} bytes) after decompression; larger ones get \`413\`. A body may be sent compressed with \`Content-Encoding\` gzip, deflate or br; another encoding gets \`415\`. Fields beyond those listed are ignored. An operation listed with no request body takes none: send none.

## Answers

${statusTable(place)}

Errors are JSON: \`{"ok":false,"error":"<message>","code":"<code>"}\`; a \`400\` for invalid fields adds \`issues: [{"path","message"}]\` naming every bad field. \`code\` is a stable snake_case name of what went wrong (\`wrong_password\` and \`cross_site\` are both \`403\`; the OpenAPI document's \`ErrorResponse\` lists every code); message texts may change: branch on the status code and \`code\`. On \`503\`, try again later.
`;
}
