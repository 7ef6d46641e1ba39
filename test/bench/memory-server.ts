/**
 * The production wiring on the memory store, with a clock the benchmark can move (over IPC), so that
 * limiter windows can expire without waiting an hour. Messages: 'rss' and 'expire'.
 */
import { pino } from 'pino';
import { ManualClock } from '@sl-accounts/core/testing';
import { createApp } from '@sl-accounts/http-koa';
import { loadConfig, startServer } from '@sl-accounts/server';

const clock = new ManualClock(new Date());
const config = loadConfig({ ...process.env, STORE: 'memory', TRUST_PROXY: '1' });
const running = await startServer(config, (service) => createApp(service).callback(), { clock, logger: pino({ level: config.logLevel }), sweepIntervalMs: 250 });

function memory() {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external };
}

process.on('message', async (msg: string) => {
  if (msg === 'rss') process.send!({ memory: memory() });
  if (msg === 'expire') {
    clock.advance(2 * 60 * 60 * 1000);
    await new Promise((r) => setTimeout(r, 1000)); // a few sweeps
    memory();
    // Then idle a moment, as a server between bursts does: V8 gives freed pages back to the system
    // only after a full collection has found them free.
    await new Promise((r) => setTimeout(r, 5000));
    process.send!({ memory: memory() });
  }
});
process.once('SIGTERM', () => running.close().then(() => process.exit(0)));
