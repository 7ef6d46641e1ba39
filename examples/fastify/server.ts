/**
 * The service inside a Fastify 5 app written the way Fastify apps are: its default body parsers for
 * the app's own routes, the service as an encapsulated plugin (its bodies are its own), and a route
 * of the app's own behind the service's `preHandler` guard. It reads the same environment as
 * `pnpm start` (BASE_PATH puts the service under a prefix):
 *
 *   STORE=memory BASE_PATH=/accounts node examples/fastify/server.ts
 */
import Fastify from 'fastify';
import { accounts, requireSession } from '@sl-accounts/http-fastify';
import { runMain, type ListenerFactory } from '@sl-accounts/server';

export const fastifyHost: ListenerFactory = (service) => {
  const app = Fastify();
  void app.register(accounts(service));
  app.get('/hello', async () => ({ ok: true, hello: 'world' }));
  app.get('/hello/me', { preHandler: requireSession(service) }, async (request) => ({ ok: true, hello: request.user!.email }));
  // runMain serves a node:http listener: Fastify's router, once its plugins are loaded.
  const ready = app.ready();
  return (req, res) => void ready.then(() => app.routing(req, res));
};

if (import.meta.main) await runMain(fastifyHost);
