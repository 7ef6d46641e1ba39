/**
 * The static import graph of a workspace module: every module it loads at run time (type-only
 * imports left out), following relative imports and `@sl-accounts/*` packages to their sources.
 * Other packages are listed, not followed. For tests that hold an entry point to what it may load.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

export interface ModuleGraph {
  /** Every workspace source file reached, relative to the repository root. */
  readonly files: readonly string[];
  /** Each `node:*` module reached, with the files that import it. */
  readonly builtins: ReadonlyMap<string, readonly string[]>;
  /** Packages from outside the workspace that it imports. */
  readonly external: ReadonlySet<string>;
}

/** An `@sl-accounts/<name>[/sub]` specifier's source file, from the package's `exports` (`source`). */
function workspaceEntry(specifier: string): string | undefined {
  const match = /^@sl-accounts\/([^/]+)(\/.*)?$/.exec(specifier);
  if (!match) return undefined;
  const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', match[1]!, 'package.json'), 'utf8')) as { exports: Record<string, { source?: string; default: string }> };
  const target = manifest.exports[`.${match[2] ?? ''}`];
  if (!target) throw new Error(`${specifier}: no such export`);
  return join(ROOT, 'packages', match[1]!, target.source ?? target.default);
}

const IMPORT = /(?:^|[;\s])(import\s+type\s[^;]*?from|export\s+type\s[^;]*?from|import\s[^;'"]*?from|export\s[^;'"]*?from|import\s*\(|import)\s*['"]([^'"]+)['"]/g;

/** The graph from `entry` (a path relative to the repository root, or an `@sl-accounts/*` specifier). */
export function moduleGraph(entry: string): ModuleGraph {
  const files = new Set<string>();
  const builtins = new Map<string, string[]>();
  const external = new Set<string>();
  const walk = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    // Comments out first: they quote imports in prose.
    const source = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const [, kind, specifier] of source.matchAll(IMPORT)) {
      if (/^(import|export)\s+type\s/.test(kind!)) continue;
      if (specifier!.startsWith('node:')) builtins.set(specifier!, [...(builtins.get(specifier!) ?? []), relative(ROOT, file)]);
      else if (specifier!.startsWith('.')) walk(resolve(dirname(file), specifier!));
      else {
        const inWorkspace = workspaceEntry(specifier!);
        if (inWorkspace) walk(inWorkspace);
        else external.add(specifier!);
      }
    }
  };
  walk(workspaceEntry(entry) ?? join(ROOT, entry));
  return { files: [...files].map((f) => relative(ROOT, f)), builtins, external };
}
