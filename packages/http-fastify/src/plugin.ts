/**
 * `accounts(service)`: the service as a Fastify plugin, registered as any plugin is, at any prefix:
 *
 *   await app.register(accounts(service), { prefix: '/accounts' });
 *
 * Encapsulated (no `fastify-plugin`): what it sets up, its content-type parsing among it, holds for
 * its own routes only.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApi, HttpService } from '@sl-accounts/service/http';
import { matchedPrefix, toHttpRequest } from '@sl-accounts/service/http-node';
import { send } from './send.ts';

/**
 * The service's routes, every method: at the root its documents, `/mcp` and its API namespace
 * (`/api/*`); under the service's `basePath` everything inside it and the `/.well-known/`
 * documents at the origin's root (RFC 8615). Inside the plugin every body is left unread for the
 * contract, which reads it under its own rules (JSON only, gzip, deflate and br, 64 KiB, UTF-8)
 * after the rate limit counted the request: the plugin drops the parent's parsers for its routes
 * only, and the app's own routes keep Fastify's.
 */
export function accounts(service: HttpService): FastifyPluginAsync {
  const { api } = service;
  return async (fastify) => {
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    // The plugin's prefix as registered (a parent's included): the service answers under it.
    const prefix = fastify.prefix;
    const { basePath } = api;
    const paths = basePath ? [basePath, `${basePath}/*`, ...api.paths.filter((p) => p.startsWith('/.well-known/'))] : api.mountPaths;
    for (const path of new Set(paths)) {
      fastify.all(toRoutePath(path), (request, reply) => serve(api, request, reply, prefix ? matchedPrefix(prefix, request.url) : undefined));
    }
  };
}

async function serve(api: HttpApi, request: FastifyRequest, reply: FastifyReply, mountPath: string | undefined): Promise<FastifyReply> {
  // `raw.url` is the target as received, prefix included.
  return send(reply, await api.handle(toHttpRequest(request.raw, undefined, request.raw.url ?? '/', mountPath)));
}

/** A contract path in Fastify's syntax: `{id}` is `:id`; a `:` of the path itself is doubled. */
function toRoutePath(path: string): string {
  return path
    .split('/')
    .map((segment) => {
      const name = /^\{(\w+)\}$/.exec(segment)?.[1];
      return name === undefined ? segment.replace(/:/g, '::') : `:${name}`;
    })
    .join('/');
}
