/**
 * `pnpm start`: the service under the Koa adapter, configured from the environment.
 */
import { createApp } from '@sl/http-koa';
import { runMain } from './run.ts';
import type { Host } from './serve.ts';

/** The Koa host. */
export const koaHost: Host = (service) => createApp(service).callback();

if (import.meta.main) await runMain(koaHost);
