/**
 * docs/embedding.md documents every option of `createService` in its table, trust of proxies first,
 * and no option the service does not take (issue 32): an embedder reads them there, not in a source
 * file the tarball does not hold. The names come from the service's own option check.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { SERVICE_OPTION_NAMES } from '@sl-accounts/service';

const text = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../docs/embedding.md'), 'utf8');

it('docs/embedding.md has a row for every createService option, trustProxy first, and none more', () => {
  const section = /^## Options of `createService`\n([\s\S]*?)(?=^## )/m.exec(text)?.[1];
  expect(section, 'docs/embedding.md has no "## Options of `createService`" section').toBeDefined();
  const rows = [...section!.matchAll(/^\| ((?:`\w+`(?:, )?)+) \|/gm)].map((m) => [...m[1]!.matchAll(/`(\w+)`/g)].map((n) => n[1]!));
  expect(rows[0]).toEqual(['trustProxy']);
  expect(rows.flat().sort()).toEqual([...SERVICE_OPTION_NAMES].sort());
  expect(text).not.toMatch(/packages\/service\/src/);
});
