/**
 * A new PGlite data directory is made in a child process. PGlite runs `initdb` in a second,
 * in-memory PGlite beside the first and copies its files over: in the server's own process that
 * lifted its peak to ~590 MB and left it ~30-70 MB larger for good (the second instance's
 * WebAssembly memory and code stay until a full collection, which an idle server may never run),
 * measured in docs/performance.md. In a child, the peak is the child's, before the server has loaded
 * PGlite at all, and the server opens the directory as it opens any existing one.
 *
 * As a script: `node init-data-dir.ts <dataDir> <settings as JSON>`, run by `initDataDir`.
 */
import { spawn } from 'node:child_process';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPrivatePGlite } from './private-data-dir.ts';

/** The child gets the parent's WebAssembly flags (`--liftoff-only`), and no others (a debugger's port, a test runner's loaders). */
const WASM_FLAG = /^--(no-)?(liftoff|wasm)/;

/** Creates the database in `dataDir` (already private and locked by this process) unless it has one. */
export async function initDataDir(dataDir: string, settings: Readonly<Record<string, string>> = {}): Promise<void> {
  if (await hasDatabase(dataDir)) return;
  const child = spawn(process.execPath, [...process.execArgv.filter((a) => WASM_FLAG.test(a)), fileURLToPath(import.meta.url), dataDir, JSON.stringify(settings)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2_000)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`Could not create the database in ${dataDir}: ${stderr.trim() || `initdb exited with ${code}`}`);
}

async function hasDatabase(dataDir: string): Promise<boolean> {
  return access(join(dataDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
}

if (import.meta.main) {
  const [dataDir, settings] = process.argv.slice(2);
  try {
    const pglite = await openPrivatePGlite(dataDir!, JSON.parse(settings!) as Record<string, string>);
    await pglite.close();
  } catch (error) {
    // One line for the parent's message, not a stack into minified code.
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
