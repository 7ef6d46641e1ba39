/**
 * An embedder's tests type-check with the strictest usual settings (issue 40, row 7): `request`'s
 * `json` takes the type the test names (`request<{ user: User }>(…)`), where it was `unknown` and
 * each read of it a strict error. test/embedder/*.test.ts, as test:pack checks them from the
 * tarballs, here against the sources, in memory.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ts } from '../support/typescript.ts';
import { expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const EMBEDDER = join(ROOT, 'test/embedder');

it('test/embedder/*.test.ts: no error under strict, exactOptionalPropertyTypes and noUncheckedIndexedAccess', { tags: ['compiler'], timeout: 60_000 }, () => {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => void d })!;
  const files = readdirSync(EMBEDDER).filter((f) => f.endsWith('.test.ts')).map((f) => join(EMBEDDER, f));
  expect(files.length).toBeGreaterThanOrEqual(3);
  const program = ts.createProgram(files, { ...config.options, strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true });
  const errors = files.flatMap((file) => {
    const source = program.getSourceFile(file)!;
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
      (d) => `${file.slice(ROOT.length + 1)}:${source.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    );
  });
  expect(errors).toEqual([]);
});
