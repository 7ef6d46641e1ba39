/**
 * One operation of the route table as Markdown for agents (auth.md and the skills): its method and
 * path under the mount path, what it does, its path parameters, its body's fields with their types
 * and bounds (from the request schema the route names), a curl command with the route's example
 * and its answers. A route added to the table is written like every other, with no other edit.
 */
import { RATE_LIMITS, SESSION_PASSWORD_POLICY } from '@sl-accounts/service/core';
import { API_ROUTES, type ApiRoute } from '@sl-accounts/service/http';
import { requestBodySchema } from './component-schemas.ts';
import { routeResponses } from './openapi.ts';
import { SESSION_PASSWORD_SENTENCE, curl, describeLimit, fieldTable, prefixPaths } from './wording.ts';

/** Where the operations are, as a document writes it. */
export interface Place {
  /** What curl commands start with: the origin (or `$BASE`) and the mount path, inert. */
  readonly url: string;
  /** The mount path as the client sees it (`/accounts`, or empty), inert: every path starts with it. */
  readonly prefix: string;
}

/** `` `DELETE /accounts/api/sessions/{id}` ``: the operation by its method and its path under the mount path. */
export function operationName(route: ApiRoute, place: Place): string {
  return `\`${route.method} ${place.prefix}${route.path}\``;
}

/** The `{name}` segments of the route's path, in order. */
const parameterNames = (route: ApiRoute) => [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!);

function parameterTable(route: ApiRoute, place: Place): string {
  const rows = parameterNames(route).map((name) => {
    const parameter = route.pathParameters?.[name];
    if (!parameter) throw new Error(`${route.operationId}: the route table gives {${name}} no description and example (pathParameters)`);
    return `| \`${name}\` | ${prefixPaths(parameter.description, place.prefix)} | \`${parameter.example}\` |`;
  });
  return ['| Path parameter | What it is | Example |', '|---|---|---|', ...rows].join('\n');
}

/**
 * The route's own answers (the generic ones are listed once per document), each saying what it does
 * to the cookie and, for an error, every `code` it may carry (those its traits imply included).
 */
function answers(route: ApiRoute, place: Place): string {
  const cookie = { set: ' Sets the session cookie.', clear: ' Clears the session cookie.' } as const;
  return routeResponses(route)
    .filter(([status]) => route.responses[status] !== undefined)
    .map(([status, { description, cookie: effect }]) => {
      const said = effect === undefined || /cookie/i.test(description);
      return `- \`${status}\`: ${prefixPaths(description, place.prefix)}${said ? '' : cookie[effect]}`;
    })
    .join('\n');
}

/** One operation as a `###` section. */
export function operationSection(route: ApiRoute, place: Place): string {
  const parameters = parameterNames(route);
  const schema = requestBodySchema(route);
  const about = [
    `**${route.summary}.**`,
    prefixPaths(route.description, place.prefix),
    ...(route.auth === 'session' ? ['Send the session cookie.'] : route.cookieAdvice ? [route.cookieAdvice] : []),
    ...(route.loginChallenge ? ['Send the `sl_login` cookie the login’s 202 set (replace `<challenge>` with its value).'] : []),
    ...(route.limited ? [`At most ${describeLimit(RATE_LIMITS[route.limited])} per client IP.`] : []),
    ...(route.alsoLimited?.includes(SESSION_PASSWORD_POLICY) ? [SESSION_PASSWORD_SENTENCE] : []),
  ].join(' ');
  // Placeholders in angle brackets, as for the token: curl would read `{id}` as a glob.
  const path = route.path.replace(/\{(\w+)\}/g, '<$1>');
  return [
    `### ${operationName(route, place)}`,
    about,
    ...(parameters.length > 0 ? [`${parameters.map((name) => `Replace \`<${name}>\``).join(' and ')} in the path as the table says.\n\n${parameterTable(route, place)}`] : []),
    schema ? `JSON body (\`Content-Type: application/json\`):\n\n${fieldTable(schema)}` : 'No request body.',
    ['```sh', curl(route.method, `${place.url}${path}`, { body: route.requestExample, cookie: route.auth === 'session' || route.cookieAdvice !== undefined, loginChallenge: route.loginChallenge === true }), '```'].join('\n'),
    `Answers:\n\n${answers(route, place)}`,
  ].join('\n\n');
}

/**
 * Writes operations into one document, each once: `one` names an operation where the document tells
 * its story, `rest` writes every operation not written yet (that `filter` keeps), so a document that
 * ends with `rest()` holds every route of the table.
 */
export function operationWriter(place: Place) {
  const written = new Set<ApiRoute>();
  const write = (route: ApiRoute) => {
    written.add(route);
    return operationSection(route, place);
  };
  return {
    one(operationId: string): string {
      const route = API_ROUTES.find((r) => r.operationId === operationId);
      if (!route) throw new Error(`no route ${operationId} in the route table`);
      return write(route);
    },
    /** The sections of every route not yet written that `filter` keeps, in table order; empty when none. */
    rest(filter: (route: ApiRoute) => boolean = () => true): string {
      return API_ROUTES.filter((r) => !written.has(r) && filter(r))
        .map(write)
        .join('\n\n');
    },
  };
}

/** A `##` section, or nothing when it has no body (a filter that kept no route). */
export function section(title: string, body: string): string {
  return body === '' ? '' : `## ${title}\n\n${body}\n\n`;
}
