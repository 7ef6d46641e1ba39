/**
 * Every bare specifier a package's built JavaScript imports (static or dynamic), checked against
 * what its manifest declares: an import its manifest leaves out works in the workspace, where pnpm
 * links everything, and fails for a user (the issue that found it: installing the server and Koa
 * tarballs alone failed on a missing `@sl-accounts/service/http`).
 */
import { builtinModules } from 'node:module';

const BUILTINS = new Set(builtinModules);
const SPECIFIERS = [/\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /\bimport\s*['"]([^'"]+)['"]/g];

/** The package a bare specifier names (`@scope/name/sub` is `@scope/name`); `null` for relative paths and node's own modules. */
export function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:') || BUILTINS.has(specifier.split('/')[0]!)) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The packages that `sources` (the text of each built .js file) import and `declared` does not hold. */
export function undeclaredImports(sources: readonly string[], declared: ReadonlySet<string>, own: string): string[] {
  const missing = new Set<string>();
  for (const source of sources) {
    for (const pattern of SPECIFIERS) {
      for (const match of source.matchAll(pattern)) {
        const name = packageOf(match[1]!);
        if (name !== null && name !== own && !declared.has(name)) missing.add(name);
      }
    }
  }
  return [...missing].sort();
}
