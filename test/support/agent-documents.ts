/**
 * Checks of the Markdown documents for agents (auth.md, the SKILL.md files) against the route table,
 * read as an agent reads them: one `###` section per operation, named by its method and its path
 * under the mount path, with a table of the body's fields. The expected fields come from the zod
 * schema the route names, converted here on their own, not from the discovery package's output.
 */
import { expect } from 'vitest';
import { z } from 'zod';
import type { ApiRoute } from '@sl-accounts/service/http';

/** The `###` sections of a document by their title (`` `POST /accounts/api/signup` ``). */
export function operationSections(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  const parts = text.split(/^### /m).slice(1);
  for (const part of parts) {
    const [title, ...rest] = part.split('\n');
    // A section ends at the next heading of any level.
    const body = rest.join('\n').split(/^#{1,3} /m)[0]!;
    expect(sections.has(title!), `two sections ${title}`).toBe(false);
    sections.set(title!, body);
  }
  return sections;
}

/** The title an operation's section has under `prefix`. */
export const sectionTitle = (route: { readonly method: string; readonly path: string }, prefix: string) => `\`${route.method} ${prefix}${route.path}\``;

type FieldSchema = { type?: string; format?: string; minLength?: number; maxLength?: number; 'x-trimmed'?: unknown };

/**
 * Asserts that `section` lists the body fields of `route` (name, type, whether required, and the
 * bounds of its schema), and nothing else, and shows a curl command with the route's example.
 */
export function expectFieldsOf(route: ApiRoute, section: string, where: string): void {
  // The object's fields as a schema of their own: the route's schema may carry an id, which would make it a `$ref`.
  const schema = z.toJSONSchema(z.object((route.requestBody as z.ZodObject).shape), { io: 'output', unrepresentable: 'any' }) as { properties?: Record<string, FieldSchema>; required?: string[] };
  const properties = Object.entries(schema.properties ?? {});
  expect(properties.length, `${where}: ${route.operationId}'s body has fields`).toBeGreaterThan(0);
  const rows = section.split('\n').filter((line) => /^\| `[^`]+` \|/.test(line));
  const listed = rows.map((row) => /^\| `([^`]+)` \|/.exec(row)![1]).filter((name) => !(route.pathParameters ?? {})[name!]);
  expect(listed, `${where}: the fields of ${route.operationId}`).toEqual(properties.map(([name]) => name));
  for (const [name, field] of properties) {
    const cells = rows.find((row) => row.startsWith(`| \`${name}\` |`))!.split('|').map((cell) => cell.trim());
    const at = `${where}: ${route.operationId}.${name}`;
    expect(cells[2], at).toBe(field.type);
    expect(cells[3], at).toBe(schema.required?.includes(name) ? 'yes' : 'no');
    const bounds = cells[4]!;
    if (field.minLength !== undefined && field.maxLength !== undefined) expect(bounds, at).toContain(`${field.minLength} to ${field.maxLength} characters`);
    else if (field.minLength !== undefined) expect(bounds, at).toContain(`at least ${field.minLength} characters`);
    else if (field.maxLength !== undefined) expect(bounds, at).toContain(`at most ${field.maxLength} characters`);
    if (field.format === 'email') expect(bounds, at).toContain('an e-mail address');
  }
  expect(section, `${where}: ${route.operationId}'s example`).toContain(`-d '${JSON.stringify(route.requestExample).replaceAll("'", `'\\''`)}'`);
}

/** Asserts that `section` gives each `{name}` of the route's path its example, and a curl command with a placeholder for it. */
export function expectParametersOf(route: ApiRoute, section: string, where: string): void {
  for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
    const row = section.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
    expect(row, `${where}: ${route.operationId} {${name}}`).toBeDefined();
    expect(row).toContain(`\`${route.pathParameters![name!]!.example}\``);
    expect(section).toContain(`${route.path.replace(/\{(\w+)\}/g, '<$1>')}"`);
  }
}

/**
 * Every place in `text` where a path of the service is written, with what precedes it: the API's
 * operations, the discovery documents and `/mcp`.
 */
const SERVICE_PATH = /\/(?:api|openapi\.json|auth\.md|mcp|\.well-known|docs)(?=[/`"'\s)?<>|,.;:]|$)/g;

/** Asserts that every path of the service in `text` starts with `prefix` (the mount path). */
export function expectEveryPathUnder(text: string, prefix: string, where: string): void {
  let found = 0;
  for (const match of text.matchAll(SERVICE_PATH)) {
    found++;
    const before = text.slice(0, match.index);
    const context = text.slice(Math.max(0, match.index - 40), match.index + 30);
    expect(before.endsWith(prefix) && !before.endsWith(`${prefix}${prefix}`), `${where}: a path without ${prefix}: …${context}…`).toBe(true);
  }
  expect(found, `${where} names paths`).toBeGreaterThan(0);
}
