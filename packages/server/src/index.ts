/** The composition root: configuration, store choice, start and graceful stop, for any host. */
export { LOG_LEVELS, loadConfig, type Config, type StoreConfig } from './config.ts';
export { runMain } from './run.ts';
export { startServer, type Host, type RunningServer, type ServerOverrides, type Service } from './serve.ts';
/** The HTTP server limits, for hosts that run their own node:http server. */
export { cutSlowReaders, defaultMaxConnections, limitConnections, openFilesLimit, serverOptions } from './http-limits.ts';
export { SAME_STOP_MS } from './stop-signals.ts';
