/**
 * Which stop signals are one stop. A process manager often delivers the same stop more than once:
 * systemd's `KillMode=control-group` (and `kill -TERM -- -PGID`) signals every process of the
 * group, and under `pnpm start` the group holds pnpm, which forwards its own copy to the server; a
 * Ctrl-C at a terminal reaches pnpm and the server alike, and pnpm forwards that too. The copies
 * came 0-2 ms after the first (issue 16's logs and this repository's stop test). A person who
 * presses Ctrl-C again because the stop takes too long does so much later, after reading that the
 * server is stopping. So: any stop signal within `SAME_STOP_MS` of the first is part of that
 * stop; one after it means "exit now".
 */

/**
 * A second after the first signal: ~500 times the gap measured between a group's signal and pnpm's
 * copy, so a loaded machine that is slow to run pnpm still delivers its copy inside it; a person's
 * second Ctrl-C within it is not lost for good, the next press (or the 9.5 s deadline) ends it.
 */
export const SAME_STOP_MS = 1_000;

export type StopVerdict = 'stop' | 'same stop' | 'now';

/** Classifies each stop signal received, by the time since the first. */
export function stopSignals(sameStopMs = SAME_STOP_MS, now: () => number = () => performance.now()): (signal: string) => StopVerdict {
  let first: number | undefined;
  return () => {
    const at = now();
    if (first === undefined) {
      first = at;
      return 'stop';
    }
    return at - first < sameStopMs ? 'same stop' : 'now';
  };
}
