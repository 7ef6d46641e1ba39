/** The composition root: configuration, store choice, start and graceful stop; `pnpm start`'s Koa app (`run`), or any request listener. */

export { loadConfig, type Config, type StoreConfig } from './config.ts';
export { runMain } from './run.ts';
export { koaServer, run, type KoaExtension, type KoaServer } from './koa.ts';
export { startServer, type ListenerFactory, type RunningServer, type ServerOverrides, type Service } from './serve.ts';
export { configureService, type ConfiguredService } from './serve.ts';
export { SAME_STOP_MS } from './stop-signals.ts';
