/** The composition root: configuration, store choice, start and graceful stop, under any request listener. */
/** Reads and checks the configuration from environment variables (`loadConfig(process.env)`). */
export { loadConfig, type Config, type StoreConfig } from './config.ts';
/** What an entry script does: configuration from the environment, start, stop on SIGTERM/SIGINT. */
export { runMain } from './run.ts';
/** Starts the service from a configuration; resolves once it listens. */
export { startServer, type ListenerFactory, type RunningServer, type ServerOverrides, type Service } from './serve.ts';
/** The service as the configuration composes it, with no socket (what `startServer` serves; tests call its `api.handle`). */
export { configureService, type ConfiguredService } from './serve.ts';
/** How soon after a stop signal another one is the same stop (a process group's copy); after it, one means "exit now". */
export { SAME_STOP_MS } from './stop-signals.ts';
