import { describe, expect, it } from 'vitest';
import { SAME_STOP_MS, stopSignals } from '../src/stop-signals.ts';

describe('stop signals', () => {
  it('takes copies within the interval for the same stop, and a later signal for "now"', () => {
    let now = 5_000;
    const verdict = stopSignals(SAME_STOP_MS, () => now);
    expect(verdict('SIGTERM')).toBe('stop');
    now += 2; // pnpm's forwarded copy
    expect(verdict('SIGTERM')).toBe('same stop');
    now += SAME_STOP_MS - 3;
    expect(verdict('SIGINT')).toBe('same stop');
    now += 1; // a person's second Ctrl-C, once the interval is over
    expect(verdict('SIGINT')).toBe('now');
    now += 60_000;
    expect(verdict('SIGINT')).toBe('now');
  });
});
