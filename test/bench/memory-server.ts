/**
 * The production wiring (`pnpm start`'s Koa app) on the memory store, with a clock the benchmark can move (over IPC), so that
 * limiter windows can expire without waiting an hour. Messages: 'rss' and 'expire'.
 */
import { pino } from 'pino';
import { ManualClock } from '@sl-accounts/service/core/testing';
import { koaServer, loadConfig, startServer } from '@sl-accounts/server';

/** The shortest sweep interval `createService` takes (SWEEP_INTERVAL_MS of `@sl-accounts/service`). */
const SWEEP_MS = 1_000;
const clock = new ManualClock(new Date());
const config = loadConfig({ ...process.env, STORE: 'memory', TRUST_PROXY: '1' });
const running = await startServer(config, koaServer(), { clock, logger: pino({ level: config.logLevel }), sweepIntervalMs: SWEEP_MS });

function memory() {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external };
}

process.on('message', async (msg: string) => {
  if (msg === 'rss') process.send!({ memory: memory() });
  if (msg === 'expire') {
    clock.advance(2 * 60 * 60 * 1000);
    await new Promise((r) => setTimeout(r, 2.5 * SWEEP_MS)); // at least two sweeps
    memory();
    // Then idle a moment, as a server between bursts does: V8 gives freed pages back to the system
    // only after a full collection has found them free (BENCH_IDLE_MS: shorter in the quick mode).
    await new Promise((r) => setTimeout(r, Number(process.env.BENCH_IDLE_MS ?? 5000)));
    process.send!({ memory: memory() });
  }
});
process.once('SIGTERM', () => running.close().then(() => process.exit(0)));
