/**
 * `/auth.md`: how an automated agent signs in. Bounds, limits and lifetimes are generated from code.
 */
import { ACCOUNT_LOGIN_LIMIT, SESSION_TTL_MS } from '@sl/core';
import { SESSION_COOKIE, sessionCookie } from '../session-cookie.ts';
import { COMPONENT_SCHEMAS } from './openapi.ts';
import { curl, describeDuration, describeLimit, fieldTable, inertUrl, markdownLink, protectedOperations, rateLimitTable } from './wording.ts';

/** auth.md for `base` (from the request when no PUBLIC_URL is set: it is made inert before use). */
export function authMarkdown(requestBase: string, serviceName: string): string {
  const base = inertUrl(requestBase);
  const ttl = describeDuration(SESSION_TTL_MS);
  return `# auth.md: signing in to ${serviceName}

This guide is for automated agents. The machine-readable description is ${markdownLink(`${base}/openapi.json`)}; all paths below are relative to \`${base}\`.

## Scheme

- **API key in a cookie.** The cookie is \`${SESSION_COOKIE}\`; its value is an opaque token. Treat it as a secret.
- The token is issued by \`POST /api/signup\` and \`POST /api/login\` in a \`Set-Cookie\` header:
  \`${sessionCookie('<token>', SESSION_TTL_MS / 1000)}\`
- Authenticated requests send it back: \`Cookie: ${SESSION_COOKIE}=<token>\`. The cookie is \`Secure\`: a browser-like cookie jar sends it only over HTTPS (or to localhost), so keep the token yourself if you talk plain HTTP.
- Protected operations: ${protectedOperations()}. Health, signup, login and contact are public.
- **There is no OAuth 2.0 and no OpenID Connect**: no authorization server, no bearer token, no token endpoint, no refresh token, no client registration. Do not send an \`Authorization\` header; it is ignored.

## 1. Create an account

\`POST /api/signup\` with a JSON body:

${fieldTable(COMPONENT_SCHEMAS.SignupRequest ?? {})}

\`\`\`sh
${curl('POST', `${base}/api/signup`, { body: { name: 'Ada Lovelace', email: 'ada@example.com', password: 'correct horse battery staple' } })}
\`\`\`

Answer: \`201\` with \`{"ok":true,"user":{"id":1,"name":"Ada Lovelace","email":"ada@example.com"}}\` and the session cookie. \`409\` means the e-mail address is already registered: log in instead. E-mail addresses are trimmed and lower-cased.

## 2. Log in

\`POST /api/login\` with a JSON body:

${fieldTable(COMPONENT_SCHEMAS.LoginRequest ?? {})}

\`\`\`sh
${curl('POST', `${base}/api/login`, { body: { email: 'ada@example.com', password: 'correct horse battery staple' } })}
\`\`\`

Answer: \`200\` with the user and a fresh session cookie; a session cookie sent along with the login is ended. \`401\` means the e-mail address or the password is wrong (the answer does not say which).

## 3. Call protected operations

\`\`\`sh
${curl('GET', `${base}/api/me`, { cookie: true })}
\`\`\`

Answer: \`200\` with \`{"ok":true,"user":{…}}\`. \`401\` means the cookie is missing, unknown or expired: log in again.

## Session lifetime

A session lasts **${ttl}** from the moment it was issued (\`Max-Age=${SESSION_TTL_MS / 1000}\`). Use does not extend it. After that, protected operations answer \`401\` and clear the cookie; log in again for a new one.

## 4. Log out

\`\`\`sh
${curl('POST', `${base}/api/logout`, { cookie: true })}
\`\`\`

Answer: \`200\` with \`{"ok":true}\`; the session is destroyed and the cookie cleared. Without a valid session the answer is \`401\` (and the cookie is cleared too).

## Rate limits

${rateLimitTable()}

Every JSON request counts, valid or not. Failed logins are also limited per account (e-mail address), from whatever address they come: ${describeLimit(ACCOUNT_LOGIN_LIMIT)} unless the operator configured otherwise; after that even the right password gets \`429\` until the window ends. Every counted answer of a limited operation, errors included, carries \`RateLimit-Policy\` and \`RateLimit\` headers (draft-ietf-httpapi-ratelimit-headers), with one list item per limit that counted it. Over a limit the answer is \`429\` with a \`Retry-After\` header: wait that many seconds before trying again.

Requests whose body is not JSON (\`400\`), and browser requests from another site's page (\`403\`), are refused before they are counted.

## Errors

Errors are JSON: \`{"ok":false,"error":"<message>"}\`; a \`400\` may add \`issues: [{"path","message"}]\` naming each bad field. Message texts may change; branch on the status code.
`;
}
