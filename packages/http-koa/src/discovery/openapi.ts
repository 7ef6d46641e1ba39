/**
 * The OpenAPI 3.1 description of the API, generated from the zod schemas: the request schemas of
 * the core and the response schemas beside this file. Bounds, rate limits and cookie attributes
 * all come from code.
 */
import { z } from 'zod';
import { ContactRequest, LoginRequest, RATE_LIMITS, SESSION_TTL_MS, SignupRequest, type LimitedOperation } from '@sl/core';
import { SESSION_COOKIE, clearedSessionCookie, sessionCookie } from '../session-cookie.ts';
import { ErrorResponse, Health, Ok, User, UserResponse } from './response-schemas.ts';
import { describeDuration, describeLimit } from './wording.ts';

/** Version of the API contract (OpenAPI `info.version`, MCP server version). */
export const API_VERSION = '1.0.0';

export type JsonSchema = Record<string, unknown>;

const REQUEST_SCHEMAS = { SignupRequest, LoginRequest, ContactRequest };
const RESPONSE_SCHEMAS = { User, UserResponse, Ok, ErrorResponse, Health };

function generateComponentSchemas(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries({ ...REQUEST_SCHEMAS, ...RESPONSE_SCHEMAS })) registry.add(schema, { id });
  const requests = new Set<unknown>(Object.values(REQUEST_SCHEMAS));
  const { schemas } = z.toJSONSchema(registry, {
    io: 'output',
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
    override: ({ zodSchema, jsonSchema }) => {
      // Output mode closes every object, but request bodies strip unknown keys rather than reject them.
      if (requests.has(zodSchema)) delete jsonSchema.additionalProperties;
    },
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _schema, $id: _id, ...schema }]) => [id, schema as JsonSchema]),
  );
}

/** `components.schemas`, generated once. */
export const COMPONENT_SCHEMAS: Readonly<Record<string, JsonSchema>> = generateComponentSchemas();

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const jsonBody = (id: string) => ({ 'application/json': { schema: ref(id) } });

function rateLimitHeaders(operation: LimitedOperation) {
  const { limit, windowMs } = RATE_LIMITS[operation];
  return {
    'RateLimit-Policy': {
      description: `The policy (draft-ietf-httpapi-ratelimit-headers-10): quota \`q\` per window \`w\` seconds.`,
      required: true,
      schema: { type: 'string', pattern: `^"${operation}";q=\\d+;w=\\d+$`, examples: [`"${operation}";q=${limit};w=${windowMs / 1000}`] },
    },
    RateLimit: {
      description: 'Requests remaining `r` in the current window and seconds `t` until it resets.',
      required: true,
      schema: { type: 'string', pattern: `^"${operation}";r=\\d+;t=\\d+$` },
    },
  };
}

const SETS_SESSION = {
  description: `Starts a session. Attributes are fixed: \`${sessionCookie('<token>', SESSION_TTL_MS / 1000)}\`.`,
  required: true,
  schema: { type: 'string', pattern: `^${SESSION_COOKIE}=[^;]+;` },
};

const CLEARS_SESSION = {
  description: `Clears the session cookie: \`${clearedSessionCookie()}\`.`,
  required: true,
  schema: { type: 'string', pattern: `^${SESSION_COOKIE}=;` },
};

interface ResponseObject {
  readonly description: string;
  readonly headers?: Record<string, unknown>;
  readonly content?: unknown;
}

const error = (description: string, headers?: Record<string, unknown>): ResponseObject => ({
  description,
  ...(headers ? { headers } : {}),
  content: jsonBody('ErrorResponse'),
});

const UNAVAILABLE = error('The store does not answer; try again later.');
const INTERNAL = error('An unexpected error; the details go to the server log, never to the client.');

const PUBLIC: unknown[] = [];
const SESSION = [{ sessionCookie: [] }];

/**
 * A rate-limited operation with a JSON body: adds the body errors and the 429, and the RateLimit
 * headers to every answer (the request is counted before anything else), except a store failure.
 */
function limitedOperation(
  operation: LimitedOperation,
  requestSchema: string,
  spec: { operationId: string; summary: string; description: string; tags: string[]; responses: Record<string, ResponseObject> },
) {
  const responses: Record<string, ResponseObject> = {
    ...spec.responses,
    '400': error('The request is invalid: malformed JSON, not a JSON object, wrong Content-Type, or a field out of bounds (see `issues`).'),
    '413': error('The request body is larger than 64 KiB.'),
    '415': error('The request body uses an unsupported Content-Encoding.'),
    '429': error('Rate limit exceeded.', {
      'Retry-After': { description: 'Whole seconds until the window resets (at least 1).', required: true, schema: { type: 'integer', minimum: 1 } },
    }),
  };
  for (const [status, response] of Object.entries(responses)) {
    responses[status] = { ...response, headers: { ...response.headers, ...rateLimitHeaders(operation) } };
  }
  return {
    ...spec,
    description: `${spec.description} Rate limited per client IP: ${describeLimit(RATE_LIMITS[operation])}; every request counts, valid or not.`,
    security: PUBLIC,
    requestBody: { required: true, content: jsonBody(requestSchema) },
    responses: { ...responses, '500': INTERNAL, '503': UNAVAILABLE },
  };
}

const PATHS = {
  '/api/health': {
    get: {
      operationId: 'getHealth',
      summary: 'Health check',
      description: 'Reports whether the service and its store answer.',
      tags: ['system'],
      security: PUBLIC,
      responses: {
        '200': { description: 'The service and its store answer.', content: jsonBody('Health') },
        '500': INTERNAL,
        '503': { description: 'The store does not answer (`ok` false, `status` "unavailable").', content: jsonBody('Health') },
      },
    },
  },
  '/api/signup': {
    post: limitedOperation('signup', 'SignupRequest', {
      operationId: 'signup',
      summary: 'Create an account',
      description: 'Creates an account and signs it in. The e-mail address is trimmed and lower-cased first; the name is trimmed.',
      tags: ['accounts'],
      responses: {
        '201': { description: 'Account created and signed in.', headers: { 'Set-Cookie': SETS_SESSION }, content: jsonBody('UserResponse') },
        '409': error('The e-mail address is already registered.'),
      },
    }),
  },
  '/api/login': {
    post: limitedOperation('login', 'LoginRequest', {
      operationId: 'login',
      summary: 'Log in',
      description: 'Checks the credentials and starts a fresh session; a session cookie sent along is ended first.',
      tags: ['accounts'],
      responses: {
        '200': { description: 'Signed in with a fresh session.', headers: { 'Set-Cookie': SETS_SESSION }, content: jsonBody('UserResponse') },
        '401': error('Invalid e-mail or password (the same answer for both).'),
      },
    }),
  },
  '/api/logout': {
    post: {
      operationId: 'logout',
      summary: 'Log out',
      description: 'Ends the session of the cookie sent along and clears the cookie.',
      tags: ['accounts'],
      security: SESSION,
      responses: {
        '200': { description: 'Session ended.', headers: { 'Set-Cookie': CLEARS_SESSION }, content: jsonBody('Ok') },
        '401': error('No valid session; the cookie is cleared anyway.', { 'Set-Cookie': CLEARS_SESSION }),
        '500': INTERNAL,
        '503': UNAVAILABLE,
      },
    },
  },
  '/api/me': {
    get: {
      operationId: 'getCurrentUser',
      summary: 'Current user',
      description: 'The user of the session cookie sent along.',
      tags: ['accounts'],
      security: SESSION,
      responses: {
        '200': { description: 'The signed-in user.', content: jsonBody('UserResponse') },
        '401': error('The session cookie is missing, unknown or expired; the cookie is cleared.', { 'Set-Cookie': CLEARS_SESSION }),
        '500': INTERNAL,
        '503': UNAVAILABLE,
      },
    },
  },
  '/api/contact': {
    post: limitedOperation('contact', 'ContactRequest', {
      operationId: 'sendContactMessage',
      summary: 'Send a contact message',
      description: 'Stores a message for the operators; no account needed. The e-mail address is trimmed and lower-cased, the name trimmed.',
      tags: ['contact'],
      responses: { '200': { description: 'Message received.', content: jsonBody('Ok') } },
    }),
  },
};

/** The OpenAPI document with `servers` pointing at `baseUrl`. */
export function openApiDocument(baseUrl: string, serviceName: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: `${serviceName} API`,
      version: API_VERSION,
      summary: 'Account signup and login with cookie sessions, the current user, logout, contact messages and a health check.',
      description: [
        'A JSON API. Request and response bodies are `application/json`.',
        `Sessions are an opaque token in the \`${SESSION_COOKIE}\` cookie (HttpOnly; Secure; SameSite=Lax), valid for ${describeDuration(SESSION_TTL_MS)} from issue.`,
        'There is no OAuth 2.0 or OpenID Connect: no bearer tokens and no token endpoint.',
        `A guide for automated agents is at ${baseUrl}/auth.md.`,
      ].join('\n\n'),
    },
    servers: [{ url: baseUrl }],
    tags: [
      { name: 'accounts', description: 'Signup, login, logout and the current user.' },
      { name: 'contact', description: 'Messages to the operators.' },
      { name: 'system', description: 'Service health.' },
    ],
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
