import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PRIVATE_FILE_MODE } from './private-data-dir.ts';

/** Directories this process holds, so a second store on one of them is refused too. */
const held = new Set<string>();

/**
 * Claims a PGlite data directory for this process and returns the release function. PGlite has no
 * lock of its own, and two processes (or two instances) writing one directory corrupt it. A lock
 * left by a process that is gone is taken over.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const path = resolve(dir);
  if (held.has(path)) throw new Error(`${dir} is already open in this process`);
  const file = join(path, 'sl-owner.pid');
  for (;;) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx', mode: PRIVATE_FILE_MODE });
      held.add(path);
      return async () => {
        held.delete(path);
        await rm(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(await readFile(file, 'utf8').catch(() => ''));
    // Our own pid here is stale too: in a container the server is pid 1 on every start.
    if (owner > 0 && owner !== process.pid && isRunning(owner)) {
      throw new Error(`${dir} is in use by process ${owner}: PGlite serves one process; use DATABASE_URL for several`);
    }
    await rm(file, { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
