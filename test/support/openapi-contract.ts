/**
 * Checks responses against the OpenAPI document, so that the end-to-end suites fail loudly when the
 * API and its description drift apart. The document comes from the same function that serves
 * /openapi.json (a discovery test checks that the two agree), built in-process so that checking
 * adds no requests to the server under test.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '@sl-accounts/service/discovery';
import { pathPattern } from '@sl-accounts/service/http';

interface HeaderObject {
  readonly required?: boolean;
  readonly schema?: { readonly type?: string };
}
interface ResponseObject {
  readonly headers?: Record<string, HeaderObject>;
  readonly content?: Record<string, unknown>;
}
type Operations = Record<string, { readonly responses: Record<string, ResponseObject> } | undefined>;

const DOCUMENT = openApiDocument('http://localhost', 'sl-accounts');
const PATHS = DOCUMENT.paths as unknown as Record<string, Operations | undefined>;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(DOCUMENT, 'openapi');

const pointer = (...segments: string[]) => `openapi#/${segments.map((s) => s.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

function validate(ref: string, value: unknown): string | null {
  const check = ajv.getSchema(ref);
  if (!check) throw new Error(`No schema at ${ref}`);
  return check(value) ? null : ajv.errorsText(check.errors);
}

export interface ObservedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly setCookies: readonly string[];
  readonly text: string;
  readonly body: unknown;
}

/** Answers that say a path or method does not exist: the only ones an undocumented API path may give. */
const ROUTING_STATUSES = new Set([404, 405, 501]);

/**
 * Throws when a response is not described by the document: an undocumented status, a missing or
 * malformed documented header, a body off its schema, or any answer of an API path the document does
 * not describe at all (so a route missing from the document fails the suites). Routing answers
 * (404, 405, 501, and OPTIONS) to undescribed paths and methods are fine; non-API paths (the
 * discovery documents) are not described by the document and are not checked.
 */
export function checkAgainstOpenApi(method: string, url: URL, res: ObservedResponse): void {
  const m = method.toLowerCase();
  // A path with `{name}` segments describes every path it matches.
  const path = PATHS[url.pathname] ? url.pathname : (Object.keys(PATHS).find((p) => p.includes('{') && pathPattern(p).pattern.test(url.pathname)) ?? url.pathname);
  const operation = PATHS[path]?.[m === 'head' ? 'get' : m];
  if (!operation) {
    if (!url.pathname.startsWith('/api/') || ROUTING_STATUSES.has(res.status) || m === 'options') return;
    throw new Error(`${method.toUpperCase()} ${url.pathname} → ${res.status}: the operation is not in the OpenAPI document`);
  }
  const where = `${method.toUpperCase()} ${url.pathname} → ${res.status}`;
  const documented = operation.responses[String(res.status)];
  if (!documented) {
    throw new Error(`${where}: status not in the OpenAPI document (it lists ${Object.keys(operation.responses).join(', ')}); body: ${res.text.slice(0, 300)}`);
  }
  const problems: string[] = [];
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const values = name.toLowerCase() === 'set-cookie' ? res.setCookies : [res.headers.get(name)].filter((v) => v !== null);
    if (values.length === 0) {
      if (header.required) problems.push(`header ${name} is missing`);
      continue;
    }
    const ref = pointer('paths', path, m, 'responses', String(res.status), 'headers', name, 'schema');
    const errors = values.map((v) => validate(ref, header.schema?.type === 'integer' ? Number(v) : v));
    if (errors.every((e) => e !== null)) problems.push(`header ${name}: ${values.join(' | ')}: ${errors[0]}`);
  }
  if (documented.content?.['application/json']) {
    if (!(res.headers.get('content-type') ?? '').includes('json')) problems.push(`content-type ${res.headers.get('content-type')} is not JSON`);
    // A body's schema is a reference to a component: checked against the component itself, which Ajv
    // then compiles once, instead of once for every operation and status that names it.
    const schema = (documented.content['application/json'] as { schema?: { $ref?: unknown } }).schema;
    const named = schema && Object.keys(schema).length === 1 && typeof schema.$ref === 'string' && schema.$ref.startsWith('#/') ? `openapi${schema.$ref}` : null;
    const errors = validate(named ?? pointer('paths', path, m, 'responses', String(res.status), 'content', 'application/json', 'schema'), res.body);
    if (errors) problems.push(`body: ${errors}`);
  } else if (res.text !== '') {
    problems.push('a body where the document describes none');
  }
  if (problems.length > 0) throw new Error(`${where} does not match the OpenAPI document:\n- ${problems.join('\n- ')}\nbody: ${res.text.slice(0, 300)}`);
}
