/**
 * docs/api.md's table of error codes holds every `code` the service can answer, with the status the
 * contract gives it: each domain error's (the codes from the error classes themselves, core's
 * DOMAIN_ERRORS, each instantiated; the statuses from http's STATUS_BY_CODE) and each of the
 * transport's own (http's TRANSPORT_ERROR_STATUS). A new code fails here until the table has its
 * row; a row for a code that no longer exists fails too.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOMAIN_ERRORS } from '@sl-accounts/core';
import { STATUS_BY_CODE, TRANSPORT_ERROR_STATUS } from '@sl-accounts/http';

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
