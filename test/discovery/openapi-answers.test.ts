/**
 * Every answer of every operation, as the route exerciser gets them in-process (each route as a
 * stranger, as accounts with and without a second factor, with its example body, wrong and right
 * passwords and codes, an empty body, from another site; and the passkey ceremonies with a software
 * authenticator), matches the OpenAPI document: a documented status, each documented header present
 * when required and valid against its schema, the body against its schema (issue 39 row 13, as
 * Prism's proxy with `--errors` checks a server). The passkey login's 200 carries two RateLimit
 * policies, the challenge's per-IP one and the account's wrong-code one.
 */
import { beforeAll, expect, it } from 'vitest';
import { API_ROUTES, pathPattern } from '@sl-accounts/service/http';
import { exercisedRoutes, type ObservedAnswer } from '../support/error-code-exerciser.ts';
import { checkAgainstOpenApi } from '../support/openapi-contract.ts';

let observed: ObservedAnswer[];
beforeAll(async () => {
  ({ observed } = await exercisedRoutes());
}, 120_000);

const routeOf = ({ method, url }: ObservedAnswer) => API_ROUTES.find((route) => route.method === method && pathPattern(route.path).pattern.test(url.pathname));

it('every answer matches the OpenAPI document: status, headers and body', () => {
  const problems = observed.flatMap(({ method, url, response }) => {
    try {
      checkAgainstOpenApi(method, url, response);
      return [];
    } catch (error) {
      return [(error as Error).message];
    }
  });
  expect(problems).toEqual([]);
});

it('every operation answered, and every one but the two that need a mailed token answered a success (the provider’s callback: its success is a 303)', () => {
  const answered = new Set(observed.map((answer) => routeOf(answer)?.operationId));
  const succeeded = new Set(observed.filter(({ response }) => response.status < 300).map((answer) => routeOf(answer)?.operationId));
  expect(API_ROUTES.filter((route) => !answered.has(route.operationId)).map((route) => route.operationId)).toEqual([]);
  expect(API_ROUTES.filter((route) => !succeeded.has(route.operationId)).map((route) => route.operationId).sort()).toEqual(['confirmEmail', 'confirmPasswordReset', 'finishProviderSignIn']);
  // The callback's success is the 303 to returnTo with `linked=` (the provider journey's).
  expect(observed.some(({ url, response }) => url.pathname === '/api/sign-in/google/callback' && response.status === 303 && response.headers.get('location') === '/?linked=google')).toBe(true);
});

it('the passkey login’s 200 names both policies that counted it in RateLimit-Policy', () => {
  const login = observed.find(({ method, url, response }) => method === 'POST' && url.pathname === '/api/login/passkey' && response.status === 200);
  expect(login?.response.headers.get('ratelimit-policy')).toMatch(/^"passkeySignIn";q=\d+;w=\d+, "[a-z-]+";q=\d+;w=\d+$/);
});
