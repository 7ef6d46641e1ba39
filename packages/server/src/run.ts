/**
 * `runMain(listenerFor)`: what an entry script does. Reads the environment, starts the server with the
 * request listener `listenerFor` makes of the service,
 * and stops it on SIGTERM or SIGINT, exiting within 10 s (see stop-signals.ts for which signals are one stop).
 */
import { loadConfig, type Config } from './config.ts';
import { startServer, type ListenerFactory } from './serve.ts';
import { stopSignals } from './stop-signals.ts';

/** After a stop signal, the process exits by this time, finished or not. */
const EXIT_DEADLINE_MS = 9_500;

/** What an entry script does: configuration from the environment, start, stop on SIGTERM/SIGINT. */
export async function runMain(listenerFor: ListenerFactory): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  // Listening from the start, and never unlistening: a signal that arrives while the server starts
  // (even just after its start-up line) stops it once it has started. (Removing Node's last listener
  // drops a signal it has caught but not yet dispatched.)
  let stopSignal: string | undefined;
  let onSignal = (signal: string): void => void (stopSignal ??= signal);
  // Classified as they arrive, also during the start: a copy of the first signal (a process
  // group's delivery, pnpm's forwarding) is the same stop, not a second one.
  const verdict = stopSignals();
  const dispatch = (signal: string) => {
    if (verdict(signal) !== 'same stop') onSignal(signal);
  };
  process.on('SIGTERM', dispatch);
  process.on('SIGINT', dispatch);
  const running = await startServer(config, listenerFor).catch((error: unknown) => {
    console.error(`Failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
  const stop = (signal: string) => {
    // A signal after the same-stop interval (Ctrl-C pressed again) means now.
    onSignal = (again) => {
      running.logger.warn({ signal: again }, `${again} received again: exiting without waiting`);
      process.exit(1);
    };
    // One line, and then the process exits 0: a stop that went well reads as one.
    running.logger.info({ signal }, `${signal} received: stopping`);
    // close() is bounded by itself; this only guarantees the 10 s a deploy may count on.
    setTimeout(() => {
      running.logger.error({}, 'shutdown did not finish in time');
      process.exit(1);
    }, EXIT_DEADLINE_MS).unref();
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        running.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  onSignal = stop;
  if (stopSignal) stop(stopSignal);
}
