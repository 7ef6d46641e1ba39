/**
 * Every TypeScript block of every package's README compiles, as an app would write it: each block is
 * a module of its own, type-checked with the repository's settings against the packages' sources,
 * in memory (nothing is written). A block may rely on what the prose around it names (an `accounts`
 * made earlier, a store of one's own): an HTML comment just before it says so in TypeScript, which
 * the check puts before the block (`<!-- snippet-context: declare const accounts: Accounts; -->`), or
 * gives a module it imports (`<!-- snippet-file ./my-store.ts: export ... -->`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

interface Snippet {
  readonly name: string;
  readonly file: string;
  readonly text: string;
}

/** The blocks of one README as modules, and the modules their comments give. */
function snippetsOf(dir: string): { readonly snippets: Snippet[]; readonly files: Map<string, string> } {
  const readme = readFileSync(join(ROOT, 'packages', dir, 'README.md'), 'utf8');
  const snippets: Snippet[] = [];
  const files = new Map<string, string>();
  // Virtual files live in a directory of their own under the package, so imports resolve as the package's do.
  const base = join(ROOT, 'packages', dir, '__readme__');
  for (const [i, match] of [...readme.matchAll(/((?:<!-- snippet-(?:context|file)[ :][^]*?-->\n)*)```ts\n([^]*?)```/g)].entries()) {
    let context = '';
    for (const comment of match[1]!.matchAll(/<!-- snippet-(context|file) ?([^:\s]*): ?([^]*?) ?-->/g)) {
      if (comment[1] === 'context') context += `${comment[3]}\n`;
      else files.set(join(base, comment[2]!), comment[3]!);
    }
    // Each block a module (top-level await included), its line numbers those of the README's block.
    snippets.push({ name: `${dir} #${i + 1}`, file: join(base, `block-${i + 1}.ts`), text: `${context}${match[2]}\nexport {};\n` });
  }
  return { snippets, files };
}

const dirs = readdirSync(join(ROOT, 'packages')).sort();
const all = dirs.map(snippetsOf);
const snippets = all.flatMap((r) => r.snippets);
const files = new Map([...all.flatMap((r) => [...r.files]), ...snippets.map((s) => [s.file, s.text] as const)]);

/**
 * Type-checks every block in one program (the packages' declarations are read once). The compiler
 * is imported here, by the one case that needs it: loading it costs ~0.4 s of CPU, which the unit
 * run, where that case is left out, would pay for the case that only counts the blocks.
 */
async function diagnostics(): Promise<Map<string, string[]>> {
  const { default: ts } = await import('typescript');
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => void d })!;
  const host = ts.createCompilerHost(config.options);
  const { fileExists, readFile, getSourceFile, directoryExists } = host;
  const dirs = new Set([...files.keys()].map((name) => dirname(name)));
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.directoryExists = (name) => dirs.has(name) || (directoryExists?.call(host, name) ?? ts.sys.directoryExists(name));
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, onError) => {
    const text = files.get(name);
    return text === undefined ? getSourceFile.call(host, name, language, onError) : ts.createSourceFile(name, text, language);
  };
  const program = ts.createProgram(
    snippets.map((s) => s.file),
    config.options,
    host,
  );
  const options = program.getOptionsDiagnostics();
  if (options.length > 0) throw new Error(ts.flattenDiagnosticMessageText(options[0]!.messageText, '\n'));
  // The snippets' own diagnostics only: the checker then looks at no more of the packages than they use.
  return new Map(
    snippets.map((s) => {
      const source = program.getSourceFile(s.file)!;
      const found = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
      return [s.file, found.map((d) => `line ${source.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)];
    }),
  );
}

it('finds a TypeScript block in most packages’ READMEs', () => {
  expect(new Set(snippets.map((s) => s.name.split(' ')[0])).size).toBeGreaterThanOrEqual(12);
});

it('compiles every block of every package README (each as a module, with what its comments say it relies on)', { tags: ['compiler'], timeout: 60_000 }, async () => {
  const found = await diagnostics();
  const failed = snippets.flatMap((s) => found.get(s.file)!.map((message) => `${s.name}, ${message}`));
  expect(failed).toEqual([]);
});
