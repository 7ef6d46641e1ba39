/**
 * The Postgres settings embedded PGlite starts with. PGlite's own defaults are a general-purpose
 * server's (shared_buffers 128 MB, 100 connections): inside WebAssembly every byte of them is this
 * process's resident memory. These fit an account database on a small machine; each value's
 * measurement is in docs/performance.md. A site that wants more passes its own (PGLITE_SETTINGS).
 */
export const DEFAULT_PGLITE_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
};

/** A setting's name as Postgres spells them: letters, digits, `_` and `.` (a module's own). */
const SETTING_NAME = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;

/**
 * Parses `name=value,name=value` (PGLITE_SETTINGS) into settings; throws an Error naming the first
 * entry that is not one. Values cannot hold commas: none of the memory settings needs one.
 */
export function parsePGliteSettings(text: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const eq = entry.indexOf('=');
    const name = entry.slice(0, Math.max(0, eq)).trim().toLowerCase();
    const value = entry.slice(eq + 1).trim();
    if (eq < 0 || !SETTING_NAME.test(name) || value === '') throw new Error(`"${entry.trim()}" is not name=value`);
    settings[name] = value;
  }
  return settings;
}

/** PGlite's start parameters with `settings` over the defaults, each as a `-c name=value`. */
export function pgliteStartParams(base: readonly string[], settings: Readonly<Record<string, string>> = {}): string[] {
  const merged = { ...DEFAULT_PGLITE_SETTINGS, ...settings };
  return [...base, ...Object.entries(merged).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
}
