/**
 * The service inside a Fastify 5 app written the way Fastify apps are: its default body parsers,
 * the app's own routes, and the service as an encapsulated plugin registered under `BASE_PATH` (or
 * the root). `GET /hello/me` is the app's own route behind the service's session guard (a
 * preHandler that decorates the request with `user`). It reads the same environment as `pnpm start`:
 *
 *   STORE=memory BASE_PATH=/accounts node examples/fastify/server.ts
 */
import Fastify, { type FastifyPluginAsync, type FastifyReply, type FastifyRequest, type preHandlerAsyncHookHandler } from 'fastify';
import type { User } from '@sl-accounts/core';
import { isHostBodyError, readJsonBody, type HostBody, type HttpAnswer, type HttpApi } from '@sl-accounts/http';
import { sendAnswer, toHttpRequest } from '@sl-accounts/http-node';
import { runMain, type ListenerFactory, type Service } from '@sl-accounts/server';

declare module 'fastify' {
  interface FastifyRequest {
    user: User | null;
  }
}

/** Marks a body the plugin's catch-all parser left unread, for the contract to read itself. */
const UNREAD = Symbol('unread body');

function send(reply: FastifyReply, answer: HttpAnswer): void {
  // The contract has framed and checked the answer: it goes out on node's response as it is.
  reply.hijack();
  sendAnswer(reply.raw, answer);
}

/**
 * The service as a plugin. Inside it (encapsulated: the app's own routes keep Fastify's default
 * parsers) JSON types are parsed by a content-type parser that is the contract's own reader, since
 * Fastify's defaults decompress nothing (a gzip body would be 400; the spec takes it), take no
 * `+json` type, and refuse a form body with 415 (the spec says 400). Every other type is left unread
 * for the contract to refuse. A body the parser refuses (malformed JSON, too large, not UTF-8)
 * reaches the plugin's error handler, which hands it to the contract: its ErrorResponse, and no rate
 * limit spent on a body the service never got.
 */
export const accountsPlugin: FastifyPluginAsync<Pick<Service, 'api' | 'mcp'>> = async (fastify, { api, mcp }) => {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(/^application\/(json|[^;]*\+json)(\s*;.*)?$/i, (request, payload, done) => {
    const { headers } = request.raw;
    readJsonBody({ method: request.method, url: request.url, headers, remoteAddress: undefined, body: payload }).then(
      (value) => done(null, { value }),
      (error: Error) => done(error),
    );
  });
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, UNREAD));

  async function serve(request: FastifyRequest, reply: FastifyReply, failed?: unknown): Promise<void> {
    const req = request.raw;
    const body: unknown = request.body;
    const hostBody: HostBody | undefined =
      failed !== undefined ? { failed } : body === UNREAD || body === undefined ? undefined : { parsed: (body as { value: unknown }).value, checked: true };
    // `req.url` is the target as received, prefix included.
    const url = req.url ?? '/';
    if (mcp.handles(url)) {
      reply.hijack();
      return mcp.handleNode(req, reply.raw, hostBody);
    }
    send(reply, await api.handle(toHttpRequest(req, hostBody, url)));
  }

  const paths = api.basePath ? ['/', '/*'] : [...api.mountPaths, mcp.path];
  for (const url of paths) fastify.all(url, (request, reply) => serve(request, reply));
  fastify.setErrorHandler(async (error, request, reply) => {
    if (!isHostBodyError(error)) throw error;
    await serve(request, reply, error);
  });
};

/** The guard: `request.user`, or the contract's 401 ErrorResponse. */
function requireSession(api: HttpApi): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    request.user = await api.session(request.raw);
    if (!request.user) send(reply, api.unauthenticated(request.raw));
  };
}

export const fastifyHost: ListenerFactory = ({ api, mcp, logger }) => {
  const app = Fastify({ logger: false });
  app.decorateRequest('user', null);
  app.get('/hello', async () => ({ ok: true, hello: 'world' }));
  app.get('/hello/me', { preHandler: requireSession(api) }, async (request) => ({ ok: true, hello: request.user!.email }));
  void app.register(accountsPlugin, { api, mcp, ...(api.basePath ? { prefix: api.basePath } : {}) });
  // Under a base path, the /.well-known/ documents still belong at the origin's root.
  if (api.basePath) {
    void app.register(async (wellKnown) => {
      wellKnown.all('/.well-known/*', (request, reply) => serveRoot(api, request, reply));
    });
  }
  // The app's own errors as JSON: domain errors by their `statusCode`-style `status`.
  app.setErrorHandler(async (error: { status?: number; statusCode?: number; expose?: boolean; message?: string }, _request, reply) => {
    const status = error.statusCode ?? error.status ?? 500;
    if (status >= 500) logger.error({ err: error }, 'app error');
    return reply.status(status).send({ ok: false, error: status < 500 || error.expose ? error.message : 'Internal server error' });
  });
  // Fastify boots its plugins asynchronously; the listener routes once it has.
  const ready = Promise.resolve(app.ready()).then(
    () => true,
    (err: unknown) => (logger.error({ err }, 'fastify did not start'), false),
  );
  return (req, res) =>
    void ready.then((started) => {
      if (started) app.routing(req, res);
      else res.writeHead(503).end();
    });
};

async function serveRoot(api: HttpApi, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  send(reply, await api.handle(toHttpRequest(request.raw)));
}

if (import.meta.main) await runMain(fastifyHost);
