/**
 * The route table as routes/index.ts assembles it from the resource files: every route declared once
 * and listed once, and the answers its traits imply derived rather than written again.
 */
import { describe, expect, it } from 'vitest';
import { API_ROUTES, type ApiRoute } from '@sl-accounts/service/http';
import { ERROR_EXAMPLES } from '@sl-accounts/service/http/examples';
// Internals of this package: the resource files the table is assembled from.
import * as account from '../src/routes/account.ts';
import * as activity from '../src/routes/activity.ts';
import * as contact from '../src/routes/contact.ts';
import * as health from '../src/routes/health.ts';
import * as identity from '../src/routes/identity.ts';
import * as login from '../src/routes/login.ts';
import * as passkeys from '../src/routes/passkeys.ts';
import * as secondFactor from '../src/routes/second-factor.ts';
import * as sessions from '../src/routes/sessions.ts';
import * as signInProviders from '../src/routes/sign-in-providers.ts';

const RESOURCES = { account, activity, contact, health, identity, login, passkeys, secondFactor, sessions, signInProviders };
/** Every route as its resource file declares it, by the name it is exported under. */
const declared: [name: string, route: ApiRoute][] = Object.values(RESOURCES).flatMap((module) => Object.entries(module as Record<string, ApiRoute>));
const declarationOf = (route: ApiRoute) => declared.find(([, d]) => d.operationId === route.operationId)![1];

describe('the route table', () => {
  it('lists every route a resource file declares, once, and nothing else; each exported under its operationId', () => {
    expect(declared.map(([name, route]) => [name, route.operationId]).filter(([name, id]) => name !== id)).toEqual([]);
    expect(API_ROUTES.map((route) => route.operationId).toSorted()).toEqual(declared.map(([name]) => name).toSorted());
    expect(new Set(API_ROUTES.map((route) => route.operationId)).size).toBe(API_ROUTES.length);
    expect(new Set(API_ROUTES.map((route) => `${route.method} ${route.path}`)).size).toBe(API_ROUTES.length);
  });

  it('gives every session route the session-ended 401 (cookie cleared), unless it declares one of its own', () => {
    const sessionRoutes = API_ROUTES.filter((route) => route.auth === 'session');
    expect(sessionRoutes.length).toBeGreaterThan(0);
    for (const route of sessionRoutes) {
      const own = declarationOf(route).responses['401'];
      if (own) expect(route.responses['401'], route.operationId).toBe(own);
      else {
        expect(route.responses['401'], route.operationId).toEqual({
          description: 'The session cookie is missing, unknown or expired; the cookie is cleared.',
          body: 'ErrorResponse',
          example: ERROR_EXAMPLES.unauthenticated,
          cookie: 'clear',
        });
      }
    }
    // Derived, not written again: no declaration spells out the answer its `auth` implies.
    const derived = sessionRoutes.find((route) => !declarationOf(route).responses['401'])!.responses['401'];
    expect(declared.filter(([, route]) => JSON.stringify(route.responses['401']) === JSON.stringify(derived)).map(([name]) => name)).toEqual([]);
  });

  it('adds nothing else: a route is its declaration, with only the 401 its `auth` implies', () => {
    for (const route of API_ROUTES) {
      const declaration = declarationOf(route);
      const { ['401']: added, ...rest } = route.responses;
      if (declaration.responses['401'] !== undefined || route.auth === 'public') expect(route, route.operationId).toBe(declaration);
      else {
        expect(added, route.operationId).toBeDefined();
        expect({ ...route, responses: rest }, route.operationId).toEqual(declaration);
      }
    }
  });
});
