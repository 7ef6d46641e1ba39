import { describe, expect, it, vi } from 'vitest';
import { startHousekeeping } from '@sl-accounts/service/core';

describe('startHousekeeping', () => {
  it('sweeps on every interval, never twice at once, and reports errors', async () => {
    vi.useFakeTimers();
    try {
      let release!: () => void;
      const sweep = vi.fn(() => new Promise<void>((resolve) => (release = resolve)));
      const errors: unknown[] = [];
      const hk = startHousekeeping(sweep, { intervalMs: 1000, onError: (e) => errors.push(e) });
      await vi.advanceTimersByTimeAsync(3000);
      expect(sweep).toHaveBeenCalledTimes(1); // still running: skipped twice
      release();
      await vi.advanceTimersByTimeAsync(1000);
      expect(sweep).toHaveBeenCalledTimes(2);
      sweep.mockImplementationOnce(() => Promise.reject(new Error('db down')));
      release();
      await vi.advanceTimersByTimeAsync(1000);
      expect(errors).toHaveLength(1);
      await hk.stop();
      await vi.advanceTimersByTimeAsync(5000);
      expect(sweep).toHaveBeenCalledTimes(3);
    } finally {
      vi.useRealTimers();
    }
  });
});
