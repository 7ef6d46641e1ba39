/**
 * The README's three code blocks are code that runs: the Koa and Express apps are the snippets of
 * docs/embedding.md that `pnpm test:pack` runs from the packed packages (test/pack/snippets.ts), and
 * the unit test is test/embedder/readme.test.ts, which `pnpm test:unit` runs. Each is at most 10
 * lines of code. docs/testing.md's longer example is test/embedder/app.test.ts, also as it is.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_SNIPPET_LINES, linesOf, readInstallLines, readSnippets } from '../pack/snippets.ts';
import unitConfig from '../../vitest.unit.config.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const README = join(ROOT, 'README.md');
const UNIT_TEST = 'test/embedder/readme.test.ts';

/** The README's code blocks marked `<!-- snippet: <name> -->`, by name. */
const blocks = readSnippets(README) as Map<string, string>;
const embedding = readSnippets(join(ROOT, 'docs/embedding.md')) as Map<string, string>;

describe('README.md', () => {
  it('shows three marked code blocks: a Koa app, an Express app and a unit test', () => {
    expect([...blocks.keys()].sort()).toEqual(['express', 'koa', 'unittest']);
  });

  it.each([...blocks])('%s: at most 10 lines of code', (_name, code) => {
    expect(linesOf(code)).toBeGreaterThan(0);
    expect(linesOf(code)).toBeLessThanOrEqual(MAX_SNIPPET_LINES);
  });

  it.each(['koa', 'express'])('%s: the snippet of docs/embedding.md that test:pack runs', (host) => {
    expect(embedding.get(host)).toBeDefined();
    expect(blocks.get(host)).toBe(embedding.get(host));
  });

  it(`unittest: ${UNIT_TEST} as it is, which the unit run runs`, () => {
    expect(blocks.get('unittest')).toBe(readFileSync(join(ROOT, UNIT_TEST), 'utf8'));
    expect(unitConfig.test?.include).toContain('test/embedder/**/*.test.ts');
  });
});

it('its install command is the Koa line of docs/embedding.md, which test:pack installs', () => {
  const line = readInstallLines(README).get('koa');
  expect(line?.tarballs).toContain('@sl-accounts/http-koa');
  expect(line?.text).toBe(readInstallLines(join(ROOT, 'docs/embedding.md')).get('koa')?.text);
});

it('docs/testing.md: its embedder test is test/embedder/app.test.ts as it is', () => {
  const testing = readSnippets(join(ROOT, 'docs/testing.md')) as Map<string, string>;
  expect(testing.get('embedder')).toBe(readFileSync(join(ROOT, 'test/embedder/app.test.ts'), 'utf8'));
});

it('docs/testing.md: its mail test is test/embedder/mail.test.ts as it is', () => {
  const testing = readSnippets(join(ROOT, 'docs/testing.md')) as Map<string, string>;
  expect(testing.get('embedder-mail')).toBe(readFileSync(join(ROOT, 'test/embedder/mail.test.ts'), 'utf8'));
});
