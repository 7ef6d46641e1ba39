/**
 * Every `pattern` of the OpenAPI document works in the regex dialects that read it (issue 40, row 9):
 * JavaScript without the `u` flag (Spectral, most generators) and with it (JSON Schema's own dialect,
 * ajv), and Python's `re` (a client generated for Python); and the dialects agree on what they match,
 * so no client accepts a name the published schema refuses elsewhere.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '@sl-accounts/service/discovery';

const DOCUMENT = openApiDocument('http://localhost', 'sl-accounts');

/** Each `pattern` string in the document, with where it is. */
function patterns(node: unknown, where = '#'): { where: string; pattern: string }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => patterns(item, `${where}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'pattern' && typeof value === 'string' ? [{ where: `${where}/pattern`, pattern: value }] : patterns(value, `${where}/${key.replaceAll('/', '~1')}`),
  );
}

const ALL = patterns(DOCUMENT);

/** Strings a name or a header might be: plain, trimmed or not, controls, bidi controls, invisible characters of every plane. */
const SAMPLES = [
  '', 'Ada', ' Ada ', 'a b', '\u0000', 'A\u0007B', ' \u0085', '\u202Eevil', 'A\u200Fb', '\u200B', '\u200B\u200B', 'A\u200B', '\u{1BCA0}', '\u{1D173}x',
  '\u{E0001}', '\u{E0001}\u{E0002}', ' \u{E0041} ', '\u3164', 'ada@example.com', ' ada@example.com ', '"login";q=20;w=900', '"login";q=20;w=900, "login-account";q=5;w=900',
  'sl_session=abc; Path=/', '𝒜da', 'x'.repeat(70), '\uFEFFAda', 'A\u001Cb', '\uD800x',
  // Lengths in characters beyond U+FFFF: without the `u` flag each is two code units.
  '𝒜'.repeat(60), '𝒜'.repeat(61), '𝒜'.repeat(120), '𝒜'.repeat(121), `${'𝒜'.repeat(100)}@example.com`,
];

describe('the OpenAPI document’s patterns', () => {
  it('has patterns to check (names, trimmed fields, headers)', () => {
    expect(ALL.length).toBeGreaterThan(10);
  });

  it('compile in JavaScript without the u flag, and match what they match with it', () => {
    const differ: string[] = [];
    for (const { where, pattern } of ALL) {
      const plain = new RegExp(pattern);
      const unicode = new RegExp(pattern, 'u');
      for (const sample of SAMPLES) if (plain.test(sample) !== unicode.test(sample)) differ.push(`${where}: ${JSON.stringify(sample)}`);
    }
    expect(differ).toEqual([]);
  });

  it('compile in Python’s re, and match there what they match in JavaScript', { tags: ['process'] }, async () => {
    const script = [
      'import json, re, sys',
      'data = json.load(sys.stdin)',
      'out = []',
      'for p in data["patterns"]:',
      '    try:',
      '        r = re.compile(p)',
      '        out.append([bool(r.search(s)) for s in data["samples"]])',
      '    except re.error as e:',
      '        out.append(str(e))',
      'print(json.dumps(out))',
    ].join('\n');
    const child = promisify(execFile)('python3', ['-c', script]);
    child.child.stdin!.end(JSON.stringify({ patterns: ALL.map((p) => p.pattern), samples: SAMPLES }));
    const results = JSON.parse((await child).stdout) as (boolean[] | string)[];
    const problems = ALL.flatMap(({ where, pattern }, i) => {
      const result = results[i]!;
      if (typeof result === 'string') return [`${where}: Python refuses it: ${result}`];
      const js = new RegExp(pattern, 'u');
      return SAMPLES.flatMap((sample, j) => (result[j] === js.test(sample) ? [] : [`${where}: ${JSON.stringify(sample)}: Python ${result[j]}`]));
    });
    expect(problems).toEqual([]);
  });
});
