/**
 * Finds a Chromium for the browser tests: `CHROMIUM_PATH` when it is set, else the first of the
 * usual install locations that holds an executable. Nothing is downloaded.
 *
 * `CHROMIUM_SEARCH_PATHS` (a `:`-separated list; empty for none) replaces the usual locations. It
 * exists so the suite can be run as on a machine without Chromium, on one that has it:
 * `CHROMIUM_SEARCH_PATHS= pnpm test` skips the browser tests, and with `CI=true` fails them.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter } from 'node:path';

/** Where Debian, Ubuntu, Fedora, snap, Google's packages and macOS put Chromium or Chrome. */
export const USUAL_CHROMIUM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/opt/google/chrome/chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** What to do when none is found, for people and for CI. */
export const INSTALL_CHROMIUM = 'install Chromium (Debian/Ubuntu: apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium or Chrome executable';

export type ChromiumSearch = { readonly path: string } | { readonly missing: string };

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function findChromium(env: NodeJS.ProcessEnv = process.env): ChromiumSearch {
  const configured = env.CHROMIUM_PATH;
  if (configured) {
    return isExecutableFile(configured) ? { path: configured } : { missing: `CHROMIUM_PATH=${configured} is not an executable file` };
  }
  const searched = env.CHROMIUM_SEARCH_PATHS === undefined ? USUAL_CHROMIUM_PATHS : env.CHROMIUM_SEARCH_PATHS.split(delimiter).filter(Boolean);
  const found = searched.find(isExecutableFile);
  if (found) return { path: found };
  const where = searched.length > 0 ? `none of ${searched.join(', ')} exists` : 'no location to search (CHROMIUM_SEARCH_PATHS is empty)';
  return { missing: `no Chromium found: CHROMIUM_PATH is not set and ${where}` };
}

/** Whether the run is CI's, where the browser tests are required (`CI=true`, or any value but `false`/`0`). */
export function browserRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}
