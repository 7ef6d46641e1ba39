/**
 * `/auth.md`: how an automated agent signs in. Operations, answers, bounds, limits and lifetimes are
 * generated from the route table and the code that enforces them, as the OpenAPI document is.
 */
import { ACCOUNT_LOGIN_LIMIT, RESET_ADDRESS_LIMIT, RESET_TOKEN_TTL_MS, SESSION_TTL_MS } from '@sl-accounts/core';
import { API_ROUTES, BODY_LIMIT_BYTES, SESSION_COOKIE, sessionCookie, type ApiRoute } from '@sl-accounts/http';
import { EXAMPLE_LOGIN, EXAMPLE_RESET_CONFIRM, EXAMPLE_RESET_REQUEST, EXAMPLE_SIGNUP, EXAMPLE_USER_RESPONSE } from '@sl-accounts/http/examples';
import { COMPONENT_SCHEMAS, routeResponses } from './openapi.ts';
import { curl, describeDuration, describeLimit, fieldTable, inertUrl, markdownLink, operationList, protectedOperations, rateLimitTable } from './wording.ts';

const routeById = (operationId: string): ApiRoute => API_ROUTES.find((r) => r.operationId === operationId)!;
const name = (route: ApiRoute) => `\`${route.method} ${route.path}\``;

/**
 * Every status an operation may answer, one row per status and meaning, with the operations that
 * answer it so: the same responses the OpenAPI document lists.
 */
function statusTable(): string {
  const rows = new Map<string, { status: string; description: string; operations: string[] }>();
  for (const route of API_ROUTES) {
    for (const [status, response] of routeResponses(route)) {
      const key = `${status}\n${response.description}`;
      const row = rows.get(key) ?? { status, description: response.description, operations: [] };
      row.operations.push(name(route));
      rows.set(key, row);
    }
  }
  const sorted = [...rows.values()].sort((a, b) => Number(a.status) - Number(b.status));
  return ['| Status | Operations | Meaning |', '|---|---|---|', ...sorted.map((r) => `| \`${r.status}\` | ${r.operations.join(', ')} | ${r.description} |`)].join('\n');
}

/** auth.md for `base` (from the request when no PUBLIC_URL is set: it is made inert before use). */
export function authMarkdown(requestBase: string, serviceName: string): string {
  const base = inertUrl(requestBase);
  const ttl = describeDuration(SESSION_TTL_MS);
  const signup = routeById('signup');
  const login = routeById('login');
  const me = routeById('getCurrentUser');
  const logout = routeById('logout');
  const resetRequest = routeById('requestPasswordReset');
  const resetConfirm = routeById('confirmPasswordReset');
  return `# auth.md: signing in to ${serviceName}

This guide is for automated agents. The machine-readable description is ${markdownLink(`${base}/openapi.json`)}; all paths below are relative to \`${base}\`.

## Scheme

- **API key in a cookie.** The cookie is \`${SESSION_COOKIE}\`; its value is an opaque token. Treat it as a secret.
- The token is issued by ${name(signup)} and ${name(login)} in a \`Set-Cookie\` header:
  \`${sessionCookie('<token>', SESSION_TTL_MS / 1000)}\`
- Authenticated requests send it back: \`Cookie: ${SESSION_COOKIE}=<token>\`. The cookie is \`Secure\`: a browser-like cookie jar sends it only over HTTPS (or to localhost), so keep the token yourself if you talk plain HTTP.
- Protected operations: ${protectedOperations()}. Health, signup, login, password reset and contact are public.
- **There is no OAuth 2.0 and no OpenID Connect**: no authorization server, no bearer token, no token endpoint, no refresh token, no client registration. Do not send an \`Authorization\` header; it is ignored.

## 1. Create an account

${name(signup)} with a JSON body:

${fieldTable(COMPONENT_SCHEMAS.SignupRequest ?? {})}

${signup.description} The password is never trimmed.

\`\`\`sh
${curl('POST', `${base}${signup.path}`, { body: EXAMPLE_SIGNUP })}
\`\`\`

Answer: \`201\` with \`${JSON.stringify(EXAMPLE_USER_RESPONSE)}\` and the session cookie. \`409\` means the e-mail address is already registered: log in instead.

## 2. Log in

${name(login)} with a JSON body:

${fieldTable(COMPONENT_SCHEMAS.LoginRequest ?? {})}

The e-mail address is trimmed and lower-cased, as at signup; the password is never trimmed.

\`\`\`sh
${curl('POST', `${base}${login.path}`, { body: EXAMPLE_LOGIN })}
\`\`\`

Answer: \`200\` with the user and a fresh session cookie. \`401\` means the e-mail address or the password is wrong (the answer does not say which). A successful login ends the session whose cookie it was sent with. A login sent without the old cookie leaves that session alive until it expires or is logged out: send the old cookie along, or log it out, to end it.

## 3. Call protected operations

\`\`\`sh
${curl('GET', `${base}${me.path}`, { cookie: true })}
\`\`\`

Answer: \`200\` with \`{"ok":true,"user":{…}}\`. \`401\` means the cookie is missing, unknown or expired: log in again.

## Session lifetime

A session lasts **${ttl}** from the moment it was issued (\`Max-Age=${SESSION_TTL_MS / 1000}\`). Use does not extend it. After that, protected operations answer \`401\` and clear the cookie; log in again for a new one.

## 4. Log out

\`\`\`sh
${curl('POST', `${base}${logout.path}`, { cookie: true })}
\`\`\`

Answer: \`200\` with \`{"ok":true}\`; the session is destroyed and the cookie cleared. Without a valid session the answer is \`401\` (and the cookie is cleared too). Logging out ends only the session of the cookie sent; other sessions of the account stay.

## 5. Sessions, password and account

${operationList({ tag: 'accounts', except: ['signup', 'login', 'getCurrentUser', 'logout', 'requestPasswordReset', 'confirmPasswordReset'] })}

A wrong password given to change the password or delete the account counts as a failed login of the account (see the rate limits below). Operations that change the account refuse browser requests from another site's page (\`403\`), as login does.

## 6. Forgotten password

${name(resetRequest)} with \`${JSON.stringify(EXAMPLE_RESET_REQUEST)}\` always answers \`202\` with \`{"ok":true}\`, registered address or not; only a registered address gets a mail. The mail links to the operator's reset page with \`?token=<token>\`. At most ${describeLimit(RESET_ADDRESS_LIMIT)} per address, from any client.

\`\`\`sh
${curl('POST', `${base}${resetRequest.path}`, { body: EXAMPLE_RESET_REQUEST })}
\`\`\`

Then ${name(resetConfirm)} with the token and the new password:

${fieldTable(COMPONENT_SCHEMAS.PasswordResetConfirmRequest ?? {})}

\`\`\`sh
${curl('POST', `${base}${resetConfirm.path}`, { body: EXAMPLE_RESET_CONFIRM })}
\`\`\`

Answer: \`200\`; the password is set and every session of the account has ended: log in again. A token is valid for ${describeDuration(RESET_TOKEN_TTL_MS)} and once; a newer request replaces it. \`400\` with an issue on \`token\` means it is unknown, used or expired.

## Rate limits

${rateLimitTable()}

Every JSON request counts, valid or not. Failed logins are also limited per account (e-mail address), from whatever address they come: ${ACCOUNT_LOGIN_LIMIT.limit} failed logins per ${describeDuration(ACCOUNT_LOGIN_LIMIT.windowMs)} unless the operator configured otherwise; after that even the right password gets \`429\` until the window ends. A client that signed in to the account before keeps the \`sl_device\` cookie that signup and login set, and sends it back to login: its attempts are then counted against a limit of its own (policy \`login-device\`), so others' failures cannot lock it out. Every counted answer of a limited operation, errors included, carries \`RateLimit-Policy\` and \`RateLimit\` headers (draft-ietf-httpapi-ratelimit-headers), with one list item per limit that counted it. Over a limit the answer is \`429\` with a \`Retry-After\` header: wait that many seconds before trying again.

Requests whose body is not JSON (\`400\`), and browser requests from another site's page (\`403\`), are refused before they are counted.

## Request bodies

Bodies are JSON objects (\`Content-Type: application/json\`, or any \`+json\` type) in UTF-8, at most ${BODY_LIMIT_BYTES / 1024} KiB (${BODY_LIMIT_BYTES} bytes) after decompression; larger ones get \`413\`. A body may be sent compressed with \`Content-Encoding\` gzip, deflate or br; another encoding gets \`415\`. Fields beyond those listed are ignored.

## Answers

${statusTable()}

Errors are JSON: \`{"ok":false,"error":"<message>"}\`; a \`400\` for invalid fields adds \`issues: [{"path","message"}]\` naming every bad field. Message texts may change; branch on the status code. On \`503\`, try again later.
`;
}
