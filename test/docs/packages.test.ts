/**
 * docs/packages.md lists every package under packages/ by its npm name, and says that none is
 * published yet (the install story the README and docs/embedding.md tell); so does each package's README.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const page = readFileSync(join(ROOT, 'docs/packages.md'), 'utf8');
const dirs = readdirSync(join(ROOT, 'packages'));
// A directory without a package.json is the sources of one of the service's subpaths (ADR 59).
const names = dirs.filter((dir) => existsSync(join(ROOT, 'packages', dir, 'package.json'))).map((dir) => (JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as { name: string }).name);

it.each(names)('docs/packages.md has a row for %s', (name) => {
  expect(page).toContain(`| \`${name}\` |`);
});

it('says the packages are not published yet', () => {
  expect(page).toMatch(/None of these packages is published on npm yet/);
});

it.each(dirs)('packages/%s/README.md says the package is not on npm yet', (dir) => {
  expect(readFileSync(join(ROOT, 'packages', dir, 'README.md'), 'utf8')).toContain('Not published on npm yet');
});
