/**
 * The core's README names its dependencies as its sources import them (issue 40, row 8; since ADR 59
 * the core is the service's `/core` subpath and has no manifest of its own): the sentence "its
 * dependencies are …" lists every third-party package the core imports, no more.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const CORE = join(dirname(fileURLToPath(import.meta.url)), '../../packages/core');

/** The third-party packages the core's sources import (statically or dynamically), by package name. */
function importedPackages(): string[] {
  const found = new Set<string>();
  for (const file of readdirSync(join(CORE, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    const code = readFileSync(join(CORE, 'src', file), 'utf8');
    for (const match of code.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"]([^'"./][^'"]*)['"]/g)) {
      const specifier = match[1]!;
      if (specifier.startsWith('node:')) continue;
      found.add(specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'));
    }
  }
  return [...found].sort();
}

it('packages/core/README.md lists the third-party packages the core imports', () => {
  const readme = readFileSync(join(CORE, 'README.md'), 'utf8').replace(/\s+/g, ' ');
  const sentence = /its dependencies are (.+?)\.(?:\s|$)/.exec(readme);
  expect(sentence, 'the README says "its dependencies are …."').not.toBeNull();
  // `a, b (what for) and c`: the names, without their parenthesised purposes or code quotes.
  const named = sentence![1]!
    .replace(/\([^)]*\)/g, '')
    .split(/,|\band\b/)
    .map((name) => name.replaceAll('`', '').trim())
    .filter(Boolean)
    .sort();
  expect(named).toEqual(importedPackages());
  // and the service, which ships the core, depends on each of them.
  const service = JSON.parse(readFileSync(join(CORE, '../service/package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const name of named) expect(service.dependencies, name).toHaveProperty([name]);
});
