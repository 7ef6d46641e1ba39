/**
 * The /docs/api page starts under every adapter's own prefix (issue 32): a Koa router nested under a
 * prefix, Hono's `app.route`, a Fastify plugin's prefix, Express's `app.use`, node:http with the
 * service's `basePath`, and a Connect-style mount of the node middleware (NestJS's). Headless
 * Chromium loads the page there and Scalar renders the operations from the document under the
 * prefix, with no request failing. The page's content over HTTP is api-docs.test.ts's.
 */
// @module-tag process
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Koa from 'koa';
import Router from '@koa/router';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { apiReferencePage } from '@sl-accounts/docs-page';
import * as onExpress from '@sl-accounts/http-express';
import * as onFastify from '@sl-accounts/http-fastify';
import * as onHono from '@sl-accounts/service/hono';
import * as onKoa from '@sl-accounts/http-koa';
import * as onNode from '@sl-accounts/service/http-node';
import { createService, type Service } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { browserNote, useChromium } from '../support/browser.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Each adapter under a prefix of its framework's own, as docs/embedding.md mounts it. */
const MOUNTS: Record<string, { readonly prefix: string; readonly basePath?: string; app(service: Service): Promise<Listener> }> = {
  'koa, a router nested under a prefix': {
    prefix: '/v1',
    app: async (service) => {
      const router = new Router().use('/v1', onKoa.accounts(service));
      return new Koa().use(router.routes()).use(router.allowedMethods()).callback();
    },
  },
  'hono, app.route': { prefix: '/v1', app: async (service) => getRequestListener(new Hono().route('/v1', onHono.accounts(service)).fetch) },
  'fastify, a plugin prefix': {
    prefix: '/v1',
    app: async (service) => {
      const app = Fastify();
      await app.register(onFastify.accounts(service), { prefix: '/v1' });
      await app.ready();
      return (req, res) => app.routing(req, res);
    },
  },
  'express, app.use': { prefix: '/v1', app: async (service) => express().use('/v1', onExpress.accounts(service)) },
  'node:http, basePath': { prefix: '/accounts', basePath: '/accounts', app: async (service) => onNode.accounts(service) },
  'NestJS-style (Connect) mount of the node middleware': {
    prefix: '/v1',
    app: async (service) => {
      const serve = onNode.accounts(service);
      return (req: onNode.ConnectRequest, res) => {
        const notFound = () => res.writeHead(404).end();
        if (!req.url?.startsWith('/v1/')) return notFound();
        req.originalUrl = req.url;
        req.url = req.url.slice('/v1'.length);
        serve(req, res, notFound);
      };
    },
  },
};

describe(`/docs/api in headless Chromium${browserNote}`, () => {
  const { launched } = useChromium();
  describe.each(Object.keys(MOUNTS))('under %s', (name) => {
    const mount = MOUNTS[name]!;
    let service: Service;
    let server: Server;
    let origin: string;
    beforeAll(async () => {
      service = await createService({ store: createMemoryStore(), docsPage: apiReferencePage, mailer: { send: async () => {} }, ...(mount.basePath ? { basePath: mount.basePath } : {}) });
      server = createServer(await mount.app(service));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
      await service?.close();
    });

    it('loads its scripts and the document from under the prefix, and renders every operation', { timeout: 60_000 }, async (ctx) => {
      const page = await launched(ctx).newPage();
      const failures: string[] = [];
      page.on('requestfailed', (r) => failures.push(`${r.url()}: ${r.failure()?.errorText}`));
      page.on('response', (r) => {
        if (r.status() >= 400) failures.push(`${r.url()}: HTTP ${r.status()}`);
      });
      const requested: string[] = [];
      page.on('request', (r) => requested.push(new URL(r.url()).pathname));
      await page.goto(`${origin}${mount.prefix}/docs/api`);
      const summaries = ['Create an account', 'Log in', 'Confirm a mailed link', 'Delete the account'];
      await page.waitForFunction(
        (texts) => {
          const { document } = globalThis as unknown as { document: { body: { innerText: string } } };
          return texts.every((text) => document.body.innerText.includes(text));
        },
        summaries,
        { timeout: 30_000 },
      );
      expect(failures).toEqual([]);
      expect(requested).toContain(`${mount.prefix}/openapi.json`);
      expect(requested.filter((path) => path.endsWith('.js')).every((path) => path.startsWith(`${mount.prefix}/docs/api/`))).toBe(true);
      await page.close();
    });
  });
});
