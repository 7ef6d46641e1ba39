/**
 * `pnpm start`'s wiring under another host, for the benchmark: `BENCH_HOST=node` serves the service with
 * `accounts(service)` of `@sl-accounts/service/http-node` (the node:http path, no framework: what `pnpm start`
 * ran from issue 35 to 40), `BENCH_HOST=fetch` with `service.fetch` on `@hono/node-server`'s `getRequestListener` (the
 * web-standard path on Node, the peer's address passed as `clientAddress`), `BENCH_HOST=koa` with
 * `createApp(service)` of `@sl-accounts/http-koa` (the service alone in a Koa app). Configured
 * from the environment as `pnpm start` is.
 */
import type { IncomingMessage } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { createApp } from '@sl-accounts/http-koa';
import { accounts } from '@sl-accounts/service/http-node';
import { runMain, type ListenerFactory } from '@sl-accounts/server';

const hosts: Record<string, ListenerFactory> = {
  node: (service) => accounts(service),
  koa: (service) => createApp(service).callback(),
  fetch: (service) => getRequestListener((request, env) => service.fetch(request, { clientAddress: (env as { incoming: IncomingMessage }).incoming.socket.remoteAddress })),
};
const host = hosts[process.env.BENCH_HOST ?? ''];
if (!host) throw new Error(`BENCH_HOST must be one of ${Object.keys(hosts).join(', ')}`);
await runMain(host);
