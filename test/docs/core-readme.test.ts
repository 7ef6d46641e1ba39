/**
 * The core's README names its dependencies as its package.json has them (issue 40, row 8): the
 * sentence "its dependencies are …" lists every third-party package the core depends on, no more.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const CORE = join(dirname(fileURLToPath(import.meta.url)), '../../packages/core');

it('packages/core/README.md lists the dependencies of packages/core/package.json', () => {
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
  const manifest = JSON.parse(readFileSync(join(CORE, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  expect(named).toEqual(Object.keys(manifest.dependencies ?? {}).sort());
});
