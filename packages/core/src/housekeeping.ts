/**
 * Runs `sweep` every `intervalMs` so that expired sessions and ended limiter windows do not pile up.
 * The timer is unref'd (it never keeps a process alive); `stop()` waits for a running sweep.
 */
export function startHousekeeping(
  sweep: () => Promise<unknown>,
  options: { readonly intervalMs: number; readonly onError?: (error: unknown) => void },
): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = sweep()
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = null;
      });
  }, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
