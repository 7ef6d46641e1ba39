/**
 * docs/api.md's table of error codes holds every `code` the service can answer, with the status the
 * contract gives it: each domain error's (the codes from the error classes themselves, core's
 * DOMAIN_ERRORS, each instantiated; the statuses from http's STATUS_BY_CODE) and each of the
 * transport's own (http's TRANSPORT_ERROR_STATUS). A new code fails here until the table has its
 * row; a row for a code that no longer exists fails too.
 *
 * Per operation (issue 39, row 13): every code an operation answers, found by calling every route
 * (test/support/error-code-exerciser.ts), is declared in the route table under the status it came
 * with (`codes`, with those the route's traits imply), and the OpenAPI response, auth.md and the
 * account skill name it where they describe that operation.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { DOMAIN_ERRORS } from '@sl-accounts/service/core';
import { routeResponses } from '@sl-accounts/service/discovery';
import { API_ROUTES, STATUS_BY_CODE, TRANSPORT_ERROR_STATUS, type ApiRoute } from '@sl-accounts/service/http';
import { exercisedRoutes, type SeenCode, type ServedDocuments } from '../support/error-code-exerciser.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const api = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');

/** The rows of the table under `### Error codes`: code, status, text. */
function documentedRows(): Map<string, { status: number; text: string }> {
  const section = /^### Error codes\n([\s\S]*?)(?=^#{2,3} )/m.exec(api)?.[1];
  if (!section) throw new Error('docs/api.md has no "### Error codes" section');
  const rows = new Map<string, { status: number; text: string }>();
  for (const [, code, status, text] of section.matchAll(/^\| `([a-z0-9_]+)` \| (\d{3}) \| (.*?) \|/gm)) rows.set(code!, { status: Number(status), text: text! });
  return rows;
}

type ErrorType = new (argument?: unknown) => Error & { code: string };

/** Each domain error's code, from an instance (a rate-limit status serves every constructor: as issues, a name, options). */
const codeOf = (type: ErrorType) => new type({ policy: 'x', limit: 1, windowSeconds: 60, remaining: 0, resetSeconds: 1 }).code;

/** The error's text when it is the same whatever it is given (no field, name or seconds in it); else undefined. */
function fixedText(type: ErrorType): string | undefined {
  try {
    const text = new type().message;
    return text === new type('other').message ? text : undefined;
  } catch {
    return undefined;
  }
}

const errors = (DOMAIN_ERRORS as readonly unknown[] as readonly ErrorType[]).map((type) => ({ type: type.name, code: codeOf(type), text: fixedText(type) }));
const rows = documentedRows();

describe('docs/api.md, Error codes', () => {
  it('the error classes and the status table name the same codes', () => {
    expect(errors.map((error) => error.code).sort()).toEqual(Object.keys(STATUS_BY_CODE).sort());
  });

  it.each(errors)('$code ($type): a row with its status', ({ code, text }) => {
    const row = rows.get(code);
    expect(row, `docs/api.md has no row for \`${code}\` in "Error codes"`).toBeDefined();
    expect(row!.status).toBe(STATUS_BY_CODE[code as keyof typeof STATUS_BY_CODE]);
    if (text !== undefined) expect(row!.text).toContain(`\`${text}\``);
  });

  it.each(Object.entries(TRANSPORT_ERROR_STATUS))('%s (the transport’s): a row with its status %i', (code, status) => {
    expect(rows.get(code), `docs/api.md has no row for \`${code}\` in "Error codes"`).toMatchObject({ status });
  });

  it('codes are snake_case and no domain error and transport answer share one', () => {
    const all = [...errors.map((error) => error.code), ...Object.keys(TRANSPORT_ERROR_STATUS)];
    for (const code of all) expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
    expect(new Set(all).size).toBe(all.length);
  });

  it('has no row for a code the service does not have', () => {
    expect([...rows.keys()].filter((code) => !errors.some((error) => error.code === code) && !(code in TRANSPORT_ERROR_STATUS))).toEqual([]);
  });
});

/** The `###` section of `route` in a Markdown document (up to the next heading). */
function sectionOf(markdown: string, route: ApiRoute): string {
  const start = markdown.indexOf(`### \`${route.method} ${route.path}\``);
  if (start < 0) throw new Error(`no section for ${route.method} ${route.path}`);
  const end = markdown.slice(start + 4).search(/^#{1,3} /m);
  return end < 0 ? markdown.slice(start) : markdown.slice(start, start + 4 + end);
}

describe('every code an operation answers is declared and documented for that operation', () => {
  let seen: SeenCode[];
  let documents: ServedDocuments;
  beforeAll(async () => {
    ({ seen, documents } = await exercisedRoutes());
  }, 120_000);
  /** Each (operation, status, code) once. */
  const distinct = () => [...new Map(seen.map((s) => [`${s.route.operationId} ${s.status} ${s.code}`, s])).values()];

  it('the routes were exercised into the codes of issue 39 (a check of the exerciser)', () => {
    const of = (operationId: string) => new Set(seen.filter((s) => s.route.operationId === operationId).map((s) => `${s.status} ${s.code}`));
    for (const operationId of ['changePassword', 'requestEmailChange', 'deleteAccount']) {
      expect([...of(operationId)], operationId).toEqual(expect.arrayContaining(['403 cross_site', '403 wrong_password', '403 second_factor_required', '403 wrong_code', '401 unauthenticated', '400 validation']));
    }
    // Adding or removing a passkey takes the proof in its own request (issue 39): the registration's
    // options and the removal ask for it; the registration itself answers a challenge that did.
    for (const operationId of ['passkeyRegistrationOptions', 'removePasskey']) expect([...of(operationId)], operationId).toEqual(expect.arrayContaining(['403 cross_site', '403 wrong_password', '403 second_factor_required']));
    expect([...of('registerPasskey')]).toEqual(expect.arrayContaining(['403 cross_site', '401 unauthenticated', '400 validation']));
    expect([...of('loginSecondFactor')]).toEqual(expect.arrayContaining(['401 invalid_code', '401 login_challenge_invalid']));
  });

  it('each code an operation answered is declared in the route table for that status', () => {
    const missing = distinct().filter(({ route, status, code }) => !(routeResponses(route).find(([s]) => s === String(status))?.[1].codes ?? []).includes(code as never));
    expect(missing.map(({ route, status, code }) => `${route.method} ${route.path} ${status} ${code}`)).toEqual([]);
  });

  it('every error response of every operation declares its codes, each a code the service has', () => {
    const known = new Set<string>([...Object.keys(STATUS_BY_CODE), ...Object.keys(TRANSPORT_ERROR_STATUS)]);
    for (const route of API_ROUTES) {
      for (const [status, response] of routeResponses(route)) {
        if (response.body !== 'ErrorResponse') continue;
        const where = `${route.operationId} ${status}`;
        expect(response.codes?.length, where).toBeGreaterThan(0);
        for (const code of response.codes!) expect(known.has(code), `${where}: ${code}`).toBe(true);
      }
    }
  });

  it('the OpenAPI document lists each code an operation answered in that response: its x-codes and its description', () => {
    const problems: string[] = [];
    for (const { route, status, code } of distinct()) {
      const served = documents.openapi.paths[route.path]?.[route.method.toLowerCase()]?.responses[String(status)];
      if (!served?.['x-codes']?.includes(code) || !served.description.includes(`\`${code}\``)) problems.push(`${route.method} ${route.path} ${status} ${code}`);
    }
    expect(problems).toEqual([]);
  });

  it('auth.md and the account skill name each code an operation answered in that operation’s section, or (for the answers every such operation gives) in the table of answers', () => {
    const skillRoutes = API_ROUTES.filter((route) => route.tag !== 'contact');
    const answers = /^## Answers\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(documents.authMd)![1]!;
    const problems: string[] = [];
    for (const { route, status, code } of distinct()) {
      const own = route.responses[String(status)] !== undefined;
      const where = `${route.method} ${route.path} ${status} ${code}`;
      if (own) {
        if (!sectionOf(documents.authMd, route).includes(`\`${code}\``)) problems.push(`auth.md: ${where}`);
        if (skillRoutes.includes(route) && !sectionOf(documents.skill, route).includes(`\`${code}\``)) problems.push(`skill: ${where}`);
      } else {
        const row = answers.split('\n').find((line) => line.startsWith(`| \`${status}\` |`) && line.includes(`\`${route.method} ${route.path}\``) && line.includes(`\`${code}\``));
        if (!row) problems.push(`auth.md's answers: ${where}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
