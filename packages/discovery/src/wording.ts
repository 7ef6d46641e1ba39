/**
 * Phrases the discovery documents share, derived from code (rate-limit rules, JSON Schemas) so that
 * no number is typed twice.
 */
import { RATE_LIMITS, type LimitedOperation, type RateLimitRule } from '@sl-accounts/core';
import { API_ROUTES, BODY_LIMIT_BYTES, SESSION_COOKIE } from '@sl-accounts/http';

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

function bounds(field: JsonSchema): string {
  // A trimmed field publishes its bounds under `x-trimmed` (see the OpenAPI document).
  const trimmed = field['x-trimmed'] as JsonSchema | undefined;
  const words = describeBounds(trimmed ?? field);
  if (trimmed) return `${words}${words ? ', ' : ''}after trimming surrounding white space`;
  return words || `any length (the whole body is at most ${BODY_LIMIT_BYTES / 1024} KiB)`;
}

/** A Markdown table of an object schema's fields: name, type, whether required, bounds. */
export function fieldTable(schema: JsonSchema): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const rows = Object.entries(properties).map(
    ([name, field]) => `| \`${name}\` | ${String(field.type)} | ${required.has(name) ? 'yes' : 'no'} | ${bounds(field)} |`,
  );
  return ['| Field | Type | Required | Bounds |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * A Markdown list of the operations with the given tag that are not among `except`: method, path,
 * summary and what it does, from the route table.
 */
export function operationList(options: { readonly tag: string; readonly except: readonly string[] }): string {
  return API_ROUTES.filter((r) => r.tag === options.tag && !options.except.includes(r.operationId))
    .map((r) => `- \`${r.method} ${r.path}\`${r.auth === 'session' ? ' (cookie)' : ''}: ${r.summary.toLowerCase()}. ${r.description}`)
    .join('\n');
}

/** The rate limits as a Markdown table, from the route table and `RATE_LIMITS`. */
export function rateLimitTable(): string {
  const rows = API_ROUTES.filter((r) => r.limited).map(
    (r) => `| \`${r.method} ${r.path}\` | ${describeLimit(RATE_LIMITS[r.limited as LimitedOperation])} |`,
  );
  return ['| Operation | Limit per client IP |', '|---|---|', ...rows].join('\n');
}

/** `POST /api/logout` and `GET /api/me`: the operations that need the session cookie, from the route table. */
export function protectedOperations(): string {
  const names = API_ROUTES.filter((r) => r.auth === 'session').map((r) => `\`${r.method} ${r.path}\``);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join('');
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

/** A curl command line, split over lines for reading. */
export function curl(method: 'GET' | 'POST' | 'DELETE', url: string, options: { body?: unknown; cookie?: boolean } = {}): string {
  return [
    `curl -i -X ${method} "${url}"`,
    ...(options.cookie ? [`  -H 'Cookie: ${SESSION_COOKIE}=<token>'`] : []),
    ...(options.body === undefined ? [] : [`  -H 'Content-Type: application/json'`, `  -d '${JSON.stringify(options.body)}'`]),
  ].join(' \\\n');
}
