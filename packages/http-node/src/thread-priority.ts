import { pbkdf2 } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { setPriority } from 'node:os';

/**
 * Runs libuv's thread pool, where `crypto.pbkdf2` hashes, at a lower CPU priority than the event loop.
 *
 * Why: a login storm keeps every core busy hashing. At equal priority the kernel shares the cores
 * between the hashing threads and the event loop, and every other request waits its turn (tens of ms
 * on a 2-core machine). With the pool niced, the event loop is scheduled first whenever it has work,
 * while hashing still uses all the CPU the event loop leaves idle, so login throughput is unchanged.
 *
 * Linux only (per-thread nice values); elsewhere it does nothing. Returns how many threads it changed.
 */
export async function deprioritizeThreadPool(niceness = 10): Promise<number> {
  if (process.platform !== 'linux') return 0;
  // The pool starts all its threads on first use.
  await new Promise((resolve) => pbkdf2('', '', 1, 1, 'sha256', resolve));
  let changed = 0;
  for (const tid of await readdir('/proc/self/task')) {
    const name = await readFile(`/proc/self/task/${tid}/comm`, 'utf8').catch(() => '');
    if (name.trim() !== 'libuv-worker') continue;
    try {
      setPriority(Number(tid), niceness);
      changed++;
    } catch {
      // Not permitted here (e.g. a sandbox): the service works the same, only with less headroom.
    }
  }
  return changed;
}
