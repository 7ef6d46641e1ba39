/**
 * Phrases the discovery documents share, derived from code (rate-limit rules, JSON Schemas) so that
 * no number is typed twice.
 */
import { ACCOUNT_LOGIN_LIMIT, RATE_LIMITS, type LimitedOperation, type RateLimitRule } from '@sl-accounts/service/core';
import { API_ROUTES, BODY_LIMIT_BYTES, LOGIN_CHALLENGE_COOKIE, SESSION_COOKIE, type ApiRoute } from '@sl-accounts/service/http';

const UNITS = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
] as const;

/** `7 days`, `hour`, `15 minutes`: the largest unit that divides the duration. */
export function describeDuration(ms: number): string {
  for (const [unit, size] of UNITS) {
    if (ms % size === 0) return ms === size ? unit : `${ms / size} ${unit}s`;
  }
  return `${ms} ms`;
}

/** `20 requests per 15 minutes`, as the spec words it. */
export function describeLimit(rule: RateLimitRule): string {
  return `${rule.limit} requests per ${describeDuration(rule.windowMs)}`;
}

/**
 * What every operation that checks a signed-in session's password says of its limit, once: the
 * documents add it to the route's description (which therefore does not say it).
 */
export const SESSION_PASSWORD_SENTENCE = `A wrong password counts against this session’s own limit on password checks (${describeLimit(ACCOUNT_LOGIN_LIMIT)} by default); over it, the answer is 429. Failed logins of the account from elsewhere do not count here.`;

type JsonSchema = Readonly<Record<string, unknown>>;

/** `an e-mail address, at most 200 characters`: the bounds of a string schema, in words. */
export function describeBounds(field: JsonSchema): string {
  const min = field.minLength as number | undefined;
  const max = field.maxLength as number | undefined;
  const length =
    min !== undefined && max !== undefined ? `${min} to ${max} characters`
    : min !== undefined ? `at least ${min} characters`
    : max !== undefined ? `at most ${max} characters`
    : '';
  const format = field.format === 'email' ? 'an e-mail address' : '';
  return [format, length].filter(Boolean).join(', ');
}

/** `1 to 10`, `at least 1`: the range of a number schema, in words (zod's safe-integer bounds of `z.int()` go unsaid). */
function describeRange(field: JsonSchema): string {
  const said = (bound: unknown) => (typeof bound === 'number' && Math.abs(bound) !== Number.MAX_SAFE_INTEGER ? bound : undefined);
  const min = said(field.minimum);
  const max = said(field.maximum);
  return min !== undefined && max !== undefined ? `${min} to ${max}` : min !== undefined ? `at least ${min}` : max !== undefined ? `at most ${max}` : 'any';
}

function bounds(field: JsonSchema): string {
  if (Array.isArray(field.enum)) return `one of ${field.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ')}`;
  if (field.type === 'integer' || field.type === 'number') return describeRange(field);
  if (field.type === 'boolean') return '`true` or `false`';
  if (field.type !== 'string') return 'see the OpenAPI document';
  // A trimmed field publishes its bounds under `x-trimmed` (see the OpenAPI document).
  const trimmed = field['x-trimmed'] as JsonSchema | undefined;
  const words = describeBounds(trimmed ?? field);
  if (trimmed) return `${words}${words ? ', ' : ''}after trimming surrounding white space`;
  return words || `any length (the whole body is at most ${BODY_LIMIT_BYTES / 1024} KiB)`;
}

/** `string`, `string or null`: a field's JSON type, in words (a nullable field is an `anyOf`). */
function typeOf(field: JsonSchema): string {
  if (typeof field.type === 'string') return field.type;
  if (Array.isArray(field.type)) return field.type.join(' or ');
  const alternatives = (field.anyOf ?? field.oneOf) as JsonSchema[] | undefined;
  return alternatives ? alternatives.map(typeOf).join(' or ') : 'any JSON value';
}

/** A Markdown table of an object schema's fields: name, type, whether required, bounds. */
export function fieldTable(schema: JsonSchema): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const rows = Object.entries(properties).map(
    ([name, field]) => `| \`${name}\` | ${typeOf(field)} | ${required.has(name) ? 'yes' : 'no'} | ${bounds(field)} |`,
  );
  return ['| Field | Type | Required | Bounds |', '|---|---|---|---|', ...rows].join('\n');
}

/** The rate limits as a Markdown table, from the route table and `RATE_LIMITS`; paths start with `prefix`. */
export function rateLimitTable(prefix: string): string {
  const rows = API_ROUTES.filter((r) => r.limited).map(
    (r) => `| \`${r.method} ${prefix}${r.path}\` | ${describeLimit(RATE_LIMITS[r.limited as LimitedOperation])} |`,
  );
  return ['| Operation | Limit per client IP |', '|---|---|', ...rows].join('\n');
}

/** `POST /api/logout and GET /api/me`: the operations that need the session cookie (or those that do not), from the route table; paths start with `prefix`. */
export function operationsWithAuth(auth: ApiRoute['auth'], prefix: string): string {
  const names = API_ROUTES.filter((r) => r.auth === auth).map((r) => `\`${r.method} ${prefix}${r.path}\``);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join('');
}

/** The first segments of the route table's paths (`/api`): what a path of the API begins with. */
const API_ROOTS = [...new Set(API_ROUTES.map((r) => `/${r.path.split('/')[1]!}`))];
const PATH_IN_CODE = new RegExp(`\`((?:[A-Z]+ )?)(${API_ROOTS.map((root) => root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?=[/\`?])`, 'g');

/**
 * Free text of the route table (a description naming `GET /api/sessions`) with every API path in
 * a code span put under `prefix`, so no path in a document misses the service's mount path.
 */
export function prefixPaths(text: string, prefix: string): string {
  return prefix === '' ? text : text.replace(PATH_IN_CODE, (_, method: string, root: string) => `\`${method}${prefix}${root}`);
}

/**
 * An inert base URL split into its origin and its path (the mount path, as the client sees it), so
 * documents can write paths that start with the mount path. `$BASE` and other bases without a
 * scheme are all origin.
 */
export function splitBase(base: string): { readonly origin: string; readonly prefix: string } {
  const match = /^([a-z][a-z0-9+.-]*:\/\/[^/]*)(.*)$/i.exec(base);
  return match ? { origin: match[1]!, prefix: match[2]!.replace(/\/+$/, '') } : { origin: base, prefix: '' };
}

/**
 * A URL in which every character that could end a Markdown code span, link or HTML tag, or a
 * double-quoted shell word, is percent-encoded (the URL means the same). Documents put URLs that
 * come from a request into Markdown, so nothing in them may be read as markup or shell.
 */
export function inertUrl(url: string): string {
  return url.replace(/[^A-Za-z0-9\-._~:/?#[\]@%+,;=]/gu, (c) => [...Buffer.from(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}

/** A Markdown link whose text is the URL itself; `url` must be an `inertUrl`. */
export function markdownLink(url: string): string {
  return `[${url.replace(/[\\[\]()*_!<>&#]/g, '\\$&')}](<${url}>)`;
}

/** `text` as one single-quoted shell word. */
const shellQuoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** A curl command line, split over lines for reading. */
export function curl(method: ApiRoute['method'], url: string, options: { body?: unknown; cookie?: boolean; loginChallenge?: boolean } = {}): string {
  return [
    `curl -i -X ${method} "${url}"`,
    ...(options.cookie ? [`  -H 'Cookie: ${SESSION_COOKIE}=<token>'`] : []),
    ...(options.loginChallenge ? [`  -H 'Cookie: ${LOGIN_CHALLENGE_COOKIE}=<challenge>'`] : []),
    ...(options.body === undefined ? [] : [`  -H 'Content-Type: application/json'`, `  -d ${shellQuoted(JSON.stringify(options.body))}`]),
  ].join(' \\\n');
}
