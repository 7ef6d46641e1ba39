/**
 * Signing in through an identity provider (`/api/sign-in/*`) and the account's linked identities
 * (`/api/me/identities*`): issue 42, docs/decisions/0055-identity-provider-client.md and 0056-identity-linking.md.
 * The `sl_oauth` cookie binds a provider's callback to the browser that started the sign-in.
 */
import { IdentityLinkRequest, UnlinkIdentityRequest, PROVIDER_SIGN_IN_TOTAL_POLICY, SECOND_FACTOR_ACCOUNT_POLICY, SESSION_PASSWORD_POLICY, ProviderSignInRequest, SIGN_IN_STATE_TTL_MS, UnknownProvider, type ProviderCallbackEnd } from '@sl-accounts/service/core';
import { ERROR_EXAMPLES } from '../examples.ts';
import type { OperationRequest } from '../operation-request.ts';
import { clearedSessionCookie, clearedSignInStateCookie, deviceCookie, DEVICE_COOKIE_PATHS, loginChallengeCookie, sessionCookie, SIGN_IN_STATE_COOKIE, signInStateCookie } from '../session-cookie.ts';
import { okAnswer, PROOF_REFUSED } from './responses.ts';
import type { ApiRoute, DocumentedResponse, OperationResult } from './route.ts';

const PROVIDER_PARAMETER = { provider: { description: 'The provider’s id, as `GET /api/sign-in/providers` lists it.', example: 'google' } };

/** What the starts and the callback need of the request: where the callback is, and the mount's root. */
function startMeta(request: OperationRequest, provider: string) {
  return { ...request.meta(), redirectUri: `${request.origin()}${request.base}/api/sign-in/${provider}/callback`, defaultReturnTo: `${request.base}/` };
}

/** The 200 of a start: the provider's URL, and the `sl_oauth` cookie. */
const STARTED: DocumentedResponse = {
  description: `The provider’s authorization URL: send the browser there. The \`${SIGN_IN_STATE_COOKIE}\` cookie (${SIGN_IN_STATE_TTL_MS / 60_000} minutes, once) binds the callback to this browser.`,
  body: 'AuthorizationUrlResponse',
  example: { ok: true, url: 'https://idp.example.com/authorize?client_id=sl-accounts&response_type=code&code_challenge_method=S256&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&state=af0ifjsldkj&nonce=n-0S6_WzA2Mj' },
  headers: {
    'Set-Cookie': {
      description: `\`${signInStateCookie('<token>', SIGN_IN_STATE_TTL_MS / 1000)}\` (under a prefix, its \`Path\` is that mount's).`,
      required: true,
      schema: { type: 'string', pattern: `^${SIGN_IN_STATE_COOKIE}=[^;]+;` },
    },
  },
};

const UNKNOWN_PROVIDER: DocumentedResponse = { description: 'No provider is configured under this id.', body: 'ErrorResponse', example: ERROR_EXAMPLES.unknownProvider, codes: ['unknown_provider'] };
const PROVIDER_UNAVAILABLE: DocumentedResponse = { description: 'The provider did not answer (its discovery document) in time: try again later.', body: 'ErrorResponse', example: ERROR_EXAMPLES.providerUnavailable, codes: ['provider_unavailable'] };

/** The started sign-in's answer. */
function startedAnswer(result: { readonly url: string; readonly stateToken: string; readonly maxAgeSeconds: number; readonly limits?: OperationResult['limits'] }, base: string): OperationResult {
  return { ...okAnswer(200, { url: result.url }, result.limits), setCookie: signInStateCookie(result.stateToken, result.maxAgeSeconds, base) };
}

/** What RFC 3986 allows in a path, a query or a fragment unencoded (`%` of an escape kept as it is). */
const NOT_IN_URI = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/g;
const escaped = (part: string) => part.replace(NOT_IN_URI, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

/**
 * The `Location` of `returnTo` (a path `isLocalPath` accepted at the start), with `name=value` added
 * to its query when given (the fragment stays last): the URL parser percent-encodes what is not
 * ASCII (UTF-8) and keeps an escape already there, and what RFC 3986 does not allow in a path,
 * query or fragment is escaped too, so the header is printable ASCII that a browser reads back as
 * the same path on this origin. Every ending goes through here: a raw `returnTo` such as `/\u2028x`
 * is no valid header value (the host's 500, after the sign-in was done) and `/é` reached the browser
 * as `/Ã©`.
 */
function locationOf(returnTo: string, parameter?: { readonly name: string; readonly value: string }): string {
  const url = new URL(returnTo, 'https://origin.invalid');
  if (parameter) url.searchParams.set(parameter.name, parameter.value);
  const query = url.search && `?${escaped(url.search.slice(1))}`;
  const fragment = url.hash && `#${escaped(url.hash.slice(1))}`;
  return `${escaped(url.pathname)}${query}${fragment}`;
}

/** The callback's 303: where to, and the cookies of what happened. */
function callbackAnswer(end: ProviderCallbackEnd, base: string): OperationResult {
  const cleared = clearedSignInStateCookie(base);
  const redirect = (location: string, cookies: readonly string[]): OperationResult => ({ status: 303, body: { ok: true }, headers: { location }, setCookie: [...cookies, cleared] });
  if ('failure' in end) return redirect(locationOf(end.returnTo, { name: 'error', value: end.failure }), []);
  if ('linked' in end) return redirect(locationOf(end.returnTo, { name: 'linked', value: end.linked }), []);
  const { step } = end;
  if ('secondFactor' in step) {
    const { token, maxAgeSeconds, methods } = step.secondFactor;
    return redirect(locationOf(end.returnTo, { name: 'second_factor', value: methods.join(',') }), [loginChallengeCookie(token, maxAgeSeconds, base), clearedSessionCookie()]);
  }
  // The device cookie at the login's paths, and at this sign-in's own: the next provider sign-in of
  // this browser presents it, so its owner is not told of a new device each time.
  const devices = DEVICE_COOKIE_PATHS.map((path) => deviceCookie(step.device.proof, step.device.maxAgeSeconds, base, path));
  devices.push(deviceCookie(step.device.proof, step.device.maxAgeSeconds, base).replace(`Path=${base}/api/login;`, `Path=${base}/api/sign-in;`));
  return redirect(locationOf(end.returnTo), [sessionCookie(step.session.token, step.session.maxAgeSeconds), ...devices]);
}

export const listSignInProviders: ApiRoute = {
  method: 'GET',
  path: '/api/sign-in/providers',
  operationId: 'listSignInProviders',
  summary: 'List the identity providers',
  description: 'The identity providers (OpenID Connect, GitHub) a person may sign in through, in the order they were configured: none unless the operator configured some.',
  tag: 'accounts',
  changesState: false,
  auth: 'public',
  responses: {
    '200': { description: 'The providers.', body: 'SignInProvidersResponse', example: { ok: true, providers: [{ id: 'google', name: 'Google' }] } },
  },
  run: async (accounts) => okAnswer(200, { providers: accounts.signInProviders() }),
};

export const startProviderSignIn: ApiRoute = {
  method: 'POST',
  path: '/api/sign-in/{provider}',
  operationId: 'startProviderSignIn',
  summary: 'Start a sign-in through an identity provider',
  description: `Answers the provider’s authorization URL (PKCE S256, \`state\`, and for OpenID Connect a \`nonce\`) and sets the \`${SIGN_IN_STATE_COOKIE}\` cookie; send the browser to the URL. The provider sends it back to \`GET /api/sign-in/{provider}/callback\`, which ends at \`returnTo\` (a path on this site; default the service’s root).`,
  tag: 'accounts',
  changesState: true,
  auth: 'public',
  limited: 'providerSignIn',
  alsoLimited: [PROVIDER_SIGN_IN_TOTAL_POLICY],
  pathParameters: PROVIDER_PARAMETER,
  requestBody: ProviderSignInRequest,
  requestExample: { returnTo: '/account' },
  responses: { '200': STARTED, '404': UNKNOWN_PROVIDER, '503': PROVIDER_UNAVAILABLE },
  run: async (accounts, request) => {
    const provider = request.param('provider');
    return startedAnswer(await accounts.startProviderSignIn(provider, request.bodyReader(), startMeta(request, provider)), request.base);
  },
};

export const finishProviderSignIn: ApiRoute = {
  method: 'GET',
  path: '/api/sign-in/{provider}/callback',
  operationId: 'finishProviderSignIn',
  summary: 'The identity provider’s callback',
  description: `Where the provider sends the browser back (the redirect URI to register with it). Checks the \`${SIGN_IN_STATE_COOKIE}\` cookie and the provider’s answer, and answers 303 to \`returnTo\`: signed in (\`sl_session\` set); or, when the account has a second factor, with the \`sl_login\` challenge a password login sets and \`second_factor=<methods>\` in the query (finish at \`POST /api/login/second-factor\` or \`/api/login/passkey\`); or, for a link, with \`linked=<provider>\`; or with \`error=<code>\` and no session (the API contract lists the codes). A GET, as a redirect from the provider is: it is not refused as cross-site, since the cookie and the single-use \`state\` bind it to the browser that started it. A HEAD (a link scanner’s, a prefetch) answers 303 to the service’s root and neither takes the state nor touches a cookie, so the browser’s own GET still finishes the sign-in.`,
  tag: 'accounts',
  changesState: false,
  auth: 'public',
  pathParameters: PROVIDER_PARAMETER,
  responses: {
    '303': {
      description: 'To `returnTo`, with the outcome in its query and cookies (the body is `{ "ok": true }` whatever the outcome: read the `Location`).',
      body: 'Ok',
      example: { ok: true },
      headers: {
        Location: { description: '`returnTo` (a path on this site), with `error=<code>`, `second_factor=<methods>` or `linked=<provider>` added when they apply; percent-encoded (UTF-8) where it holds what a URL does not, escapes it had kept.', required: true, schema: { type: 'string', pattern: '^/([!-.0-~][!-~]*)?$' } },
        'Set-Cookie': {
          description: `\`${SIGN_IN_STATE_COOKIE}\` cleared; signed in: \`sl_session\` and \`sl_device\`; at the second factor: \`sl_login\` (and \`sl_session\` cleared).`,
          required: true,
          schema: { type: 'string', pattern: `^(?:sl_session|sl_device|sl_login|${SIGN_IN_STATE_COOKIE})=[^;]*;` },
        },
      },
    },
    '404': UNKNOWN_PROVIDER,
  },
  run: async (accounts, request) => {
    const provider = request.param('provider');
    // A HEAD (a mail or chat link scanner's, a browser's prefetch) neither reads nor takes the
    // single-use state, nor clears the cookie: the person's own GET that follows still finishes.
    if (request.request.method === 'HEAD') {
      if (!accounts.signInProviders().some((listed) => listed.id === provider)) throw new UnknownProvider();
      return { status: 303, body: { ok: true }, headers: { location: `${request.base}/` } };
    }
    const end = await accounts.finishProviderSignIn(provider, { ...request.meta(), stateToken: request.signInState(), query: request.queryString(), defaultReturnTo: `${request.base}/` });
    return callbackAnswer(end, request.base);
  },
};

export const listIdentities: ApiRoute = {
  method: 'GET',
  path: '/api/me/identities',
  operationId: 'listIdentities',
  summary: 'List the account’s linked identities',
  description: 'The identities at providers that sign in to this account: provider, the provider’s subject, the address it gave, and when it was linked.',
  tag: 'accounts',
  changesState: false,
  auth: 'session',
  responses: {
    '200': { description: 'The identities.', body: 'IdentitiesResponse', example: { ok: true, identities: [{ provider: 'google', subject: '1098765', email: 'ada@example.com', linkedAt: '2026-12-06T12:00:00.000Z' }] } },
  },
  run: async (accounts, request) => okAnswer(200, { identities: await accounts.listIdentities(request.meta()) }),
};

export const startIdentityLink: ApiRoute = {
  method: 'POST',
  path: '/api/me/identities/{provider}',
  operationId: 'startIdentityLink',
  summary: 'Start linking an identity provider',
  description: `Starts a sign-in at the provider whose identity is then linked to this account (never to another: an identity is at most one account’s). Proof in the body, as every new way to sign in asks: the \`password\`, and with a second factor on a current \`code\` or a \`recoveryCode\` (a factor verified earlier for this session is not enough). An account made through a provider sets a password through the reset mail first. Answers as \`POST /api/sign-in/{provider}\` does; the callback ends with \`linked=<provider>\` and a notice mailed to the owner.`,
  tag: 'accounts',
  changesState: true,
  auth: 'session',
  limited: 'providerSignIn',
  alsoLimited: [SESSION_PASSWORD_POLICY, SECOND_FACTOR_ACCOUNT_POLICY, PROVIDER_SIGN_IN_TOTAL_POLICY],
  pathParameters: PROVIDER_PARAMETER,
  requestBody: IdentityLinkRequest,
  requestExample: { password: 'correct horse battery staple', returnTo: '/account' },
  responses: { '200': STARTED, '403': PROOF_REFUSED, '404': UNKNOWN_PROVIDER, '503': PROVIDER_UNAVAILABLE },
  run: async (accounts, request) => {
    const provider = request.param('provider');
    return startedAnswer(await accounts.startIdentityLink(provider, request.bodyReader(), startMeta(request, provider)), request.base);
  },
};

export const unlinkIdentity: ApiRoute = {
  method: 'DELETE',
  path: '/api/me/identities/{provider}',
  operationId: 'unlinkIdentity',
  summary: 'Unlink an identity provider',
  description: 'Unlinks the account’s identity at the provider, after the proof in the body, as every way to sign in removed asks: the `password`, and with a second factor on a current `code` or a `recoveryCode` (a factor verified earlier for this session is not enough). A notice is mailed, and every other session ends. Refused when it is the account’s last way to sign in (no password, passkey or other identity); an account made through a provider sets a password through the reset mail first.',
  tag: 'accounts',
  changesState: true,
  auth: 'session',
  alsoLimited: [SESSION_PASSWORD_POLICY, SECOND_FACTOR_ACCOUNT_POLICY],
  pathParameters: PROVIDER_PARAMETER,
  requestBody: UnlinkIdentityRequest,
  requestExample: { password: 'correct horse battery staple' },
  responses: {
    '200': { description: 'Unlinked.', body: 'Ok', example: { ok: true } },
    '403': PROOF_REFUSED,
    '404': { description: 'No provider under this id, or no identity of it is linked.', body: 'ErrorResponse', example: ERROR_EXAMPLES.identityNotFound, codes: ['not_found', 'unknown_provider'] },
    '409': { description: 'The identity is the account’s last way to sign in (`last_sign_in_method`), or another change of the account committed while this request was checked: nothing changed; read again and retry (`account_changed`).', body: 'ErrorResponse', example: ERROR_EXAMPLES.lastSignInMethod, codes: ['last_sign_in_method', 'account_changed'] },
  },
  run: async (accounts, request) => {
    const { limits } = await accounts.unlinkIdentity(request.param('provider'), request.bodyReader(), request.meta());
    return okAnswer(200, {}, limits);
  },
};
