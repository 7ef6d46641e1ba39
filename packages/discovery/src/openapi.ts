/**
 * The OpenAPI 3.1 description of the API, generated from the zod schemas: the request schemas of
 * the core and the response schemas beside this file. Bounds, rate limits and cookie attributes
 * all come from code.
 */
import {
  ACCOUNT_LOGIN_LIMIT,
  ACCOUNT_LOGIN_POLICY,
  DEVICE_LOGIN_POLICY,
  EMAIL_LINK_ACCOUNT_LIMIT,
  EMAIL_LINK_ACCOUNT_POLICY,
  DEVICE_PROOF_TTL_MS,
  INBOX_LIMIT,
  INBOX_POLICY,
  PROFILE_SESSION_LIMIT,
  PROFILE_SESSION_POLICY,
  RATE_LIMITS,
  RateLimited,
  RESET_ADDRESS_LIMIT,
  RESET_ADDRESS_POLICY,
  SESSION_PASSWORD_POLICY,
  SESSION_TTL_MS,
  SECOND_FACTOR_ACCOUNT_POLICY,
  SECOND_FACTOR_LIMIT,
  SECOND_FACTOR_RECOVERY_LIMIT,
  SECOND_FACTOR_RECOVERY_POLICY,
  PASSKEY_OPTIONS_SESSION_LIMIT,
  PASSKEY_OPTIONS_SESSION_POLICY,
  PASSKEY_SIGN_IN_TOTAL_LIMIT,
  PASSKEY_SIGN_IN_TOTAL_POLICY,
  parseRequest,
  type RateLimitRule,
} from '@sl-accounts/service/core';
import {
  API_ROUTES,
  BODY_LIMIT_BYTES,
  DEVICE_COOKIE,
  SESSION_COOKIE,
  clearedSessionCookie,
  deviceCookie,
  sessionCookie,
  type ApiRoute,
  type DocumentedResponse,
  type ErrorCode,
} from '@sl-accounts/service/http';
import { ERROR_EXAMPLES, errorExample } from '@sl-accounts/service/http/examples';
import { COMPONENT_SCHEMAS, requestSchemaId } from './component-schemas.ts';
import { renderedOnce } from './rendered-once.ts';
import { SESSION_PASSWORD_SENTENCE, describeDuration, describeLimit, inertUrl, markdownLink } from './wording.ts';

/** The 400 of an operation sent an empty object: one issue per required field. */
function validationExample(route: ApiRoute): unknown {
  // A body whose fields are all optional (renewing recovery codes within a step-up) refuses what is no object.
  for (const body of [{}, []]) {
    try {
      parseRequest(route.requestBody!, body);
    } catch (error) {
      return errorExample(error);
    }
  }
  throw new Error(`${route.operationId} accepts an empty body; it needs another 400 example`);
}

/** The 429 of a limited operation, a minute into a window the client has used up. */
function rateLimitedExample(route: ApiRoute): unknown {
  const policy = route.limited ?? route.alsoLimited![0]!;
  const { limit, windowMs } = route.limited ? RATE_LIMITS[route.limited] : FURTHER_LIMITS[policy]!;
  const windowSeconds = windowMs / 1000;
  return errorExample(new RateLimited({ policy, limit, windowSeconds, remaining: 0, resetSeconds: windowSeconds - 60 }));
}

/** Version of the API contract (OpenAPI `info.version`, MCP server version). */
export const API_VERSION = '1.0.0';

export type { JsonSchema } from './component-schemas.ts';
export { COMPONENT_SCHEMAS } from './component-schemas.ts';

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
/** A JSON media type object with its example (tools such as the docs' "Test Request" send it as it is). */
const jsonBody = (id: string, example: unknown) => ({ 'application/json': { schema: ref(id), example } });

/** The rule of each policy a route may name in `alsoLimited`. */
const FURTHER_LIMITS: Readonly<Record<string, RateLimitRule>> = {
  [ACCOUNT_LOGIN_POLICY]: ACCOUNT_LOGIN_LIMIT,
  // A session's own limit on password checks has the account's rule.
  [SESSION_PASSWORD_POLICY]: ACCOUNT_LOGIN_LIMIT,
  [RESET_ADDRESS_POLICY]: RESET_ADDRESS_LIMIT,
  [EMAIL_LINK_ACCOUNT_POLICY]: EMAIL_LINK_ACCOUNT_LIMIT,
  [INBOX_POLICY]: INBOX_LIMIT,
  [PROFILE_SESSION_POLICY]: PROFILE_SESSION_LIMIT,
  [SECOND_FACTOR_ACCOUNT_POLICY]: SECOND_FACTOR_LIMIT,
  [SECOND_FACTOR_RECOVERY_POLICY]: SECOND_FACTOR_RECOVERY_LIMIT,
  [PASSKEY_OPTIONS_SESSION_POLICY]: PASSKEY_OPTIONS_SESSION_LIMIT,
  [PASSKEY_SIGN_IN_TOTAL_POLICY]: PASSKEY_SIGN_IN_TOTAL_LIMIT,
};

/** Every policy that may count a request of the route, its own per-IP one first. */
export function policiesOf(route: ApiRoute): readonly string[] {
  return [...(route.limited ? [route.limited] : []), ...(route.alsoLimited ?? [])];
}

/**
 * The RateLimit headers of a limited route: a structured-field list (RFC 9651, as
 * draft-ietf-httpapi-ratelimit-headers-10 has it) with one item per policy that counted the
 * request, any of the route's, in any order. Not sent on answers given before counting.
 */
function rateLimitHeaders(route: ApiRoute, required: boolean) {
  const policies = policiesOf(route) as [string, ...string[]];
  const [first] = policies;
  const { limit, windowMs } = route.limited ? RATE_LIMITS[route.limited] : FURTHER_LIMITS[first]!;
  // Policy names are plain tokens, so they stand in the pattern as they are, in every regex dialect.
  if (policies.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) throw new Error(`${route.operationId}: a policy name that is not a plain token`);
  const name = `"(?:${policies.join('|')})"`;
  // An sf-list's members are separated by a comma and optional white space (RFC 9651, 3.1).
  const list = (parameters: string) => `^${name}${parameters}(?:[ \\t]*,[ \\t]*${name}${parameters})*$`;
  const operation = first;
  return {
    'RateLimit-Policy': {
      description: `The policies (draft-ietf-httpapi-ratelimit-headers-10) that counted the request: quota \`q\` per window \`w\` seconds.`,
      required,
      schema: { type: 'string', pattern: list(';q=\\d+;w=\\d+'), examples: [`"${operation}";q=${limit};w=${windowMs / 1000}`] },
    },
    RateLimit: {
      description: 'For each of those policies, requests remaining `r` in the current window and seconds `t` until it resets.',
      required,
      schema: { type: 'string', pattern: list(';r=\\d+;t=\\d+') },
    },
  };
}

const COOKIE_HEADERS = {
  set: {
    'Set-Cookie': {
      description: `Starts a session. Attributes are fixed: \`${sessionCookie('<token>', SESSION_TTL_MS / 1000)}\`. A second \`Set-Cookie\` gives this browser a device cookie for the account, sent only to login: \`${deviceCookie('<proof>', DEVICE_PROOF_TTL_MS / 1000)}\` (under a prefix, its \`Path\` is the login there: \`/accounts/api/login\`); while it is presented, failed logins of others on the account do not lock this browser out.`,
      required: true,
      schema: { type: 'string', pattern: `^(?:${SESSION_COOKIE}|${DEVICE_COOKIE})=[^;]+;` },
    },
  },
  clear: {
    'Set-Cookie': {
      description: `Clears the session cookie: \`${clearedSessionCookie()}\`.`,
      required: true,
      schema: { type: 'string', pattern: `^${SESSION_COOKIE}=;` },
    },
  },
};

interface ResponseObject {
  readonly description: string;
  readonly headers?: Record<string, unknown>;
  readonly content?: unknown;
}

function responseObject(response: DocumentedResponse): ResponseObject {
  const headers = { ...(response.cookie ? COOKIE_HEADERS[response.cookie] : {}), ...response.headers };
  return {
    description: response.description,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: jsonBody(response.body, response.example),
    // The codes as data too, for a generator or a checker: an extension, so `example` stays the one a tool sends.
    ...(response.codes ? { 'x-codes': response.codes } : {}),
  };
}

const error = (description: string, example: unknown, codes: readonly ErrorCode[], headers?: Record<string, unknown>): DocumentedResponse => ({
  description,
  body: 'ErrorResponse',
  example,
  codes,
  ...(headers ? { headers } : {}),
});

/** `` `code`: `a`, `b` or `c`. ``: the codes of an answer, as the documents end its description. */
function codesSentence(codes: readonly string[]): string {
  const named = codes.map((code) => `\`${code}\``);
  return `\`code\`: ${named.length > 1 ? `${named.slice(0, -1).join(', ')} or ${named.at(-1)}` : named[0]}.`;
}

/** What any operation may answer besides its own responses: the generic errors its traits imply. */
function genericResponses(route: ApiRoute): Record<string, DocumentedResponse> {
  return {
    ...(route.auth === 'session' ? { '401': { ...error('The session cookie is missing, unknown or expired; the cookie is cleared.', ERROR_EXAMPLES.unauthenticated, ['unauthenticated']), cookie: 'clear' as const } } : {}),
    '500': error('An unexpected error; the details go to the server log, never to the client.', ERROR_EXAMPLES.internal, ['internal_error']),
    '503': error('The store does not answer, or the service is stopping; try again later.', ERROR_EXAMPLES.unavailable, ['store_unavailable', 'stopping']),
    ...(route.requestBody
      ? {
          '400': error(
            'The request is invalid: malformed JSON, a body that is not UTF-8 or not a JSON object, a field out of bounds or holding U+0000 or unpaired surrogates (see `issues`), or a Content-Type other than JSON (refused before it is counted).',
            validationExample(route),
            ['validation', 'json_required', 'malformed_json', 'invalid_utf8', 'undecodable_body', 'unreadable_body'],
          ),
          '413': error(`The request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB (after decompression).`, ERROR_EXAMPLES.tooLarge, ['body_too_large']),
          '415': error('The request body uses a Content-Encoding other than gzip, deflate or br.', ERROR_EXAMPLES.unsupportedEncoding, ['unsupported_encoding']),
        }
      : {}),
    ...(route.changesState
      ? {
          '403': error(
            'A browser request from another site (`Sec-Fetch-Site` other than `same-origin` or `none`, or an `Origin` that is not this service), refused before anything is counted, read or set.',
            ERROR_EXAMPLES.crossSite,
            ['cross_site'],
          ),
        }
      : {}),
    ...(route.changesState && !route.requestBody
      ? {
          '400': error(
            'A body a form could send: a Content-Type other than JSON, or a body without one; refused before anything is read or set.',
            ERROR_EXAMPLES.notJson,
            ['json_required', 'body_not_allowed'],
          ),
        }
      : {}),
    ...(route.limited || route.alsoLimited
      ? {
          '429': error(
            tooManyText(route),
            rateLimitedExample(route),
            ['rate_limited'],
            { 'Retry-After': { description: 'Whole seconds until the window resets (at least 1).', required: true, schema: { type: 'integer', minimum: 1 } } },
          ),
        }
      : {}),
  };
}

function tooManyText(route: ApiRoute): string {
  const limits = [
    ...(route.limited ? ['the per-client-IP limit'] : []),
    ...(route.alsoLimited?.includes(ACCOUNT_LOGIN_POLICY) ? ['the per-account limit on failed logins (then even the right password, until the window ends)'] : []),
    ...(route.alsoLimited?.includes(DEVICE_LOGIN_POLICY) ? ['for a browser that presents its device cookie for the account, that device’s own limit on failed logins instead of the account’s'] : []),
    ...(route.alsoLimited?.includes(RESET_ADDRESS_POLICY) ? ['the per-address limit on reset requests (a link mailed to the address less than 30 minutes ago is then in its inbox, and the newest works)'] : []),
    ...(route.alsoLimited?.includes(SESSION_PASSWORD_POLICY) ? ['this session’s own limit on password checks (then even the right password, until the window ends)'] : []),
    ...(route.alsoLimited?.includes(EMAIL_LINK_ACCOUNT_POLICY) ? ['the account’s limit on mailed links'] : []),
    ...(route.alsoLimited?.includes(INBOX_POLICY) ? ['the share of mail anyone can cause that the address’s inbox had in the last hour (the account’s link is then not spent)'] : []),
    ...(route.alsoLimited?.includes(PROFILE_SESSION_POLICY) ? ['this session’s own limit on changes of name'] : []),
    ...(route.alsoLimited?.includes(SECOND_FACTOR_ACCOUNT_POLICY) ? ['the account’s limit on wrong second-factor codes, whatever session or device cookie sends them (then even the right code, until the window ends)'] : []),
    ...(route.alsoLimited?.includes(SECOND_FACTOR_RECOVERY_POLICY) ? ['past that, the limit on recovery codes and passkey answers (the account’s for clients without its device cookie, that cookie’s own for one with it)'] : []),
    ...(route.alsoLimited?.includes(PASSKEY_OPTIONS_SESSION_POLICY) ? ['this session’s own limit on passkey options'] : []),
    ...(route.alsoLimited?.includes(PASSKEY_SIGN_IN_TOTAL_POLICY) ? ['the limit on sign-in options from all clients together'] : []),
  ];
  return `Rate limit exceeded: ${limits.join(', or ')}.`;
}

/**
 * Every response of a route, by status in ascending order: its own and the generic ones its traits
 * imply. An own error answer of a status the traits imply too (a 403 with `wrong_password` of an
 * operation that also refuses other sites' pages) carries the codes of both, and every error answer's
 * description ends with its codes. The OpenAPI document, auth.md and the skills all list these.
 */
export function routeResponses(route: ApiRoute): [status: string, response: DocumentedResponse][] {
  let responses = responsesOf.get(route);
  if (!responses) responsesOf.set(route, (responses = collectResponses(route)));
  return [...responses];
}

/**
 * Each route's responses, collected once: they depend on the route alone, and the 400's example is
 * the core's validation run on a sample body. Every document and skill lists them, so each service's
 * start and each rendering of a document collected them again (1.7 s of test:unit's 34 s of CPU,
 * profiled on 2026-12-06).
 */
const responsesOf = new WeakMap<ApiRoute, readonly [string, DocumentedResponse][]>();

function collectResponses(route: ApiRoute): [status: string, response: DocumentedResponse][] {
  const generic = genericResponses(route);
  const all: Record<string, DocumentedResponse> = { ...generic };
  for (const [status, own] of Object.entries(route.responses)) {
    const implied = own.body === 'ErrorResponse' ? (generic[status]?.codes ?? []) : [];
    const codes = [...new Set([...(own.codes ?? []), ...implied])];
    all[status] = codes.length > 0 ? { ...own, codes } : own;
  }
  return Object.entries(all)
    .map(([status, response]): [string, DocumentedResponse] => [status, response.codes ? { ...response, description: `${response.description} ${codesSentence(response.codes)}` } : response])
    .sort(([a], [b]) => Number(a) - Number(b));
}

/** Answers that may come before the request is counted, or without a limiter that answered: no RateLimit headers are described. */
const UNCOUNTED_STATUSES = new Set(['403', '500', '503']);
/** Answers about the body, which a host's parser may give before the request is counted: RateLimit headers optional. */
const BODY_STATUSES = new Set(['400', '413', '415']);

/** One operation object of the document, from its route. */
function operationObject(route: ApiRoute) {
  const responses: Record<string, ResponseObject> = {};
  for (const [status, response] of routeResponses(route)) responses[status] = responseObject(response);
  // A JSON request from no foreign page is counted before anything else, so every answer but a
  // store failure, a 403 and (for a wrong Content-Type) a 400 carries the quota. Embedded behind a
  // host's own body parser, a body that parser refused (400, 413, 415) was never the service's to
  // count, so those answers may come without it.
  if (route.limited) {
    for (const [status, response] of Object.entries(responses)) {
      if (UNCOUNTED_STATUSES.has(status)) continue;
      responses[status] = { ...response, headers: { ...response.headers, ...rateLimitHeaders(route, !BODY_STATUSES.has(status)) } };
    }
  } else if (route.alsoLimited) {
    // Counted only once the session is known (the mailed links' limit) or the password checked: the
    // answers that may follow a count may carry the quota.
    for (const status of ['200', '202', '403', '409', '429']) {
      const response = responses[status];
      if (response) responses[status] = { ...response, headers: { ...response.headers, ...rateLimitHeaders(route, false) } };
    }
  }
  const limit = route.limited
    ? ` Rate limited per client IP: ${describeLimit(RATE_LIMITS[route.limited])}; every JSON request counts, valid or not.${route.alsoLimited?.includes(ACCOUNT_LOGIN_POLICY) ? ' Failed logins are also limited per account (e-mail address), whoever sends them; a browser that signed in to the account before and presents its device cookie (`sl_device`) is limited on its own instead, so others’ failures cannot lock it out.' : ''}${route.alsoLimited?.includes(RESET_ADDRESS_POLICY) ? ` Per address: ${describeLimit(RESET_ADDRESS_LIMIT)}, registered or not.` : ''}`
    : route.alsoLimited?.includes(SESSION_PASSWORD_POLICY)
      ? ` ${SESSION_PASSWORD_SENTENCE}`
      : '';
  const parameters = pathParameters(route);
  const bodyId = requestSchemaId(route);
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: `${route.description}${limit}`,
    tags: [route.tag],
    // An optional cookie: either no requirement or the cookie (OpenAPI 3.1, 4.8.30: `{}` is "none").
    security: route.auth === 'session' ? [{ sessionCookie: [] }] : route.cookieAdvice ? [{}, { sessionCookie: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(bodyId === undefined ? {} : { requestBody: { required: true, content: jsonBody(bodyId, route.requestExample) } }),
    responses,
  };
}

/**
 * The path parameters of a route, each with its description and example from the route table, so a
 * tool that calls every operation (Dredd, the docs' "Test Request") has a value to put in the path.
 */
function pathParameters(route: ApiRoute) {
  const inPath = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => {
    const parameter = route.pathParameters?.[name!];
    if (!parameter) throw new Error(`${route.operationId}: the route table gives {${name}} no description and example (pathParameters)`);
    return { name: name!, in: 'path', required: true, description: parameter.description, schema: { type: 'string', minLength: 1 }, example: parameter.example };
  });
  // Optional query parameters (a page's `cursor`), after the path's.
  const inQuery = Object.entries(route.queryParameters ?? {}).map(([name, parameter]) => ({ name, in: 'query', required: false, description: parameter.description, schema: { type: 'string', minLength: 1 }, example: parameter.example }));
  return [...inPath, ...inQuery];
}

/** `paths`, from the route table. */
const PATHS: Record<string, Record<string, ReturnType<typeof operationObject>>> = {};
for (const route of API_ROUTES) (PATHS[route.path] ??= {})[route.method.toLowerCase()] = operationObject(route);

const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  accounts:
    'Signup, login, logout, the current user and a change of its name, sessions, password change and reset, verification and change of the e-mail address, account deletion, two-factor authentication (TOTP from an authenticator app, recovery codes) and passkeys (WebAuthn: adding, listing, renaming and removing them, signing in, a login’s second step, a step-up).',
  contact: 'Messages to the operators.',
  system: 'Service health.',
};
/** Every tag a route names, those described above first: a route with a new tag brings it along. */
const TAGS = [...new Set([...Object.keys(TAG_DESCRIPTIONS), ...API_ROUTES.map((route) => route.tag)])].map((name) => ({
  name,
  ...(TAG_DESCRIPTIONS[name] === undefined ? {} : { description: TAG_DESCRIPTIONS[name] }),
}));

/** The licence of the API description and the code behind it (the repository's LICENSE), as an SPDX id. */
const LICENSE = { name: 'MIT', identifier: 'MIT' } as const;

/** The OpenAPI document as JSON text, rendered once for each base URL and name (`renderedOnce`). */
const renderedJson = new Map<string, string>();
export const openApiJson = (baseUrl: string, serviceName: string): string =>
  renderedOnce(renderedJson, [baseUrl, serviceName], () => JSON.stringify(openApiDocument(baseUrl, serviceName)));

/**
 * The OpenAPI document with `servers` pointing at `baseUrl`. Its `info.contact` is the service by
 * its name and URL (the service index answers there): both follow the configuration (the service
 * name, PUBLIC_URL and BASE_PATH), and no address is published that the operator did not choose.
 */
export function openApiDocument(baseUrl: string, serviceName: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: `${serviceName} API`,
      version: API_VERSION,
      license: LICENSE,
      contact: { name: serviceName, url: baseUrl },
      summary:
        'Account signup and login with cookie sessions, two-factor authentication (TOTP, recovery codes) and passkeys, the current user, logout, sessions, password change and reset, verification and change of the e-mail address, change of name, account deletion, contact messages and a health check.',
      description: [
        'A JSON API. Request and response bodies are `application/json`.',
        `Sessions are an opaque token in the \`${SESSION_COOKIE}\` cookie (HttpOnly; Secure; SameSite=Lax), valid for ${describeDuration(SESSION_TTL_MS)} from issue.`,
        'There is no OAuth 2.0 or OpenID Connect: no bearer tokens and no token endpoint.',
        `A guide for automated agents is at ${markdownLink(`${inertUrl(baseUrl)}/auth.md`)}.`,
      ].join('\n\n'),
    },
    servers: [{ url: baseUrl }],
    tags: TAGS,
    paths: PATHS,
    components: {
      schemas: COMPONENT_SCHEMAS,
      securitySchemes: {
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: 'The opaque session token that POST /api/signup and POST /api/login set.',
        },
      },
    },
  };
}
