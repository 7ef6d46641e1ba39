/**
 * The lint rule docs/no-stray-tags (eslint.config.js) flags exactly the `@words` TypeScript reads as
 * tags in a doc comment, so a package named in prose cannot cut a hover short again.
 */
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { ts } from '../support/typescript.ts';
import { expect, it } from 'vitest';
import { noStrayTags } from '../../scripts/no-stray-tags.ts';

const linter = new Linter({ configType: 'flat' });
const flagged = (code: string) =>
  linter
    .verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { docs: { rules: { 'no-stray-tags': noStrayTags } } }, rules: { 'docs/no-stray-tags': 'error' } }], 'x.ts')
    .map((message) => message.message);

/** The tags TypeScript finds in the doc comment of the file's first statement. */
function typescriptTags(code: string): string[] {
  const file = ts.createSourceFile('x.ts', code, ts.ScriptTarget.Latest, true);
  return ts.getJSDocTags(file.statements[0]!).map((tag) => tag.tagName.text);
}

const CASES = [
  { code: '/** The service as an @koa/router router. */\nexport const a = 1;\n', stray: ['koa'] },
  { code: '/**\n * Served by\n * @sl-accounts/docs-page when given.\n */\nexport const b = 1;\n', stray: ['sl-accounts'] },
  { code: '/** The service as an `@koa/router` router; mail ada@example.com. */\nexport const c = 1;\n', stray: [] },
  { code: '/**\n * Its options.\n * @deprecated use the other one\n */\nexport const d = 1;\n', stray: [] },
];

it.each(CASES)('flags what TypeScript reads as a stray tag: $stray', ({ code, stray }) => {
  expect(typescriptTags(code).filter((tag) => tag !== 'deprecated')).toEqual(stray);
  expect(flagged(code)).toHaveLength(stray.length);
});
