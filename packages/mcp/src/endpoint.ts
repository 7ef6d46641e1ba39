/**
 * `/mcp` on Streamable HTTP (official SDK, stateless): a fetch-style handler any host can mount, and
 * a node:http bridge for hosts that hold a request and a response (node:http, Koa, Fastify). The SDK
 * is imported on the first request to /mcp, not at start-up.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { DEFAULT_SERVICE_NAME, type Accounts } from '@sl-accounts/core';
import { baseUrlOf, clientAddress, normaliseBasePath, logRequest, requestIdOf, requestPath, silentLogger, type DocumentRoute, type HostBody, type Logger } from '@sl-accounts/http';
import { toHttpRequest } from '@sl-accounts/http-node';
import type { McpCaller, McpFetch } from './caller.ts';
import { jsonRpcError } from './json-rpc.ts';
import { lazily } from './lazily.ts';
import { MCP_PATH } from './protocol.ts';
import { serverCardDocuments } from './server-card.ts';

export interface McpEndpointOptions {
  readonly accounts: Accounts;
  readonly serviceName?: string;
  /** `PUBLIC_URL`: resource URIs and the server card use it; browsers on its origin may call /mcp. */
  readonly publicUrl?: string | undefined;
  /** Trusted proxy hops, as for the HTTP API: the same client address counts against the same limits. */
  readonly trustProxy?: number;
  readonly logger?: Logger;
  /** The path the service is mounted under (`BASE_PATH`), as for the HTTP API: the endpoint is `<basePath>/mcp`. */
  readonly basePath?: string;
  /**
   * The path, under the base path, of a page about the service (`API_REFERENCE_PATH` of
   * @sl-accounts/docs-page when it is served): the server card's `websiteUrl`. Unset: the card names none.
   */
  readonly websitePath?: string;
}

export interface McpEndpoint {
  /** The path the endpoint serves: `/mcp`, or `<basePath>/mcp`. */
  readonly path: string;
  /** Whether a request target (`req.url`) is for this endpoint; hosts route by this. */
  handles(url: string): boolean;
  /** The server card, as documents for `discoveryDocuments({ extra })` of @sl-accounts/discovery. */
  readonly documents: readonly DocumentRoute[];
  /**
   * Web-standard: for hosts that speak `Request`/`Response`. The first call imports the SDK; while it
   * cannot be loaded, every call answers 503 (a JSON-RPC error) and the next one tries again.
   */
  fetch(request: Request, caller: McpCaller): Promise<Response>;
  /**
   * node:http: answers on `res` directly (Koa: set `ctx.respond = false` first), with the request log
   * line. `hostBody`: what a body parser that ran first made of the body (see `HostBody`).
   */
  handleNode(req: IncomingMessage, res: ServerResponse, hostBody?: HostBody): Promise<void>;
}

/** Node's server manages the connection; these must not be copied from a web `Response`. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { accounts, publicUrl, trustProxy = 0, logger = silentLogger } = options;
  const serviceName = options.serviceName ?? DEFAULT_SERVICE_NAME;
  const basePath = normaliseBasePath(options.basePath);
  const path = basePath + MCP_PATH;
  const handler = lazily(async () => {
    try {
      const { createMcpFetch } = await import('./fetch-handler.ts');
      return createMcpFetch({ accounts, serviceName, publicUrl: publicUrl === undefined ? undefined : publicUrl + basePath, logger });
    } catch (err) {
      logger.error({ err }, 'could not load the MCP SDK; /mcp answers 503 and loads it again on the next request');
      throw err;
    }
  });

  async function fetch(request: Request, caller: McpCaller): Promise<Response> {
    let answer: McpFetch;
    try {
      answer = await handler();
    } catch {
      return jsonRpcError(503, -32000, 'The MCP endpoint is temporarily unavailable');
    }
    return answer(request, caller);
  }

  async function handleNode(req: IncomingMessage, res: ServerResponse, hostBody?: HostBody): Promise<void> {
    const start = performance.now();
    // The contract's view of the request, for its id, client address and base URL; the body stays node's, for the SDK.
    const view = toHttpRequest(req);
    const reqId = requestIdOf(view, trustProxy);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('x-request-id', reqId);
    let response: Response;
    try {
      const aborted = new AbortController();
      res.once('close', () => aborted.abort());
      // The web Request only carries method, headers and body to the SDK: its URL is a fixed origin,
      // so no Host header, however odd, can make it unparsable. Resource URIs use `baseUrl`.
      const query = view.url.indexOf('?');
      const request = toWebRequest(req, `http://localhost${MCP_PATH}${query < 0 ? '' : view.url.slice(query)}`, aborted.signal, hostBody === undefined);
      const caller: McpCaller = { clientIp: clientAddress(view, trustProxy, logger), userAgent: req.headers['user-agent'] || null, baseUrl: baseUrlOf(view, undefined, trustProxy) + basePath };
      response = await fetch(request, hostBody ? { ...caller, hostBody } : caller);
    } catch (err) {
      logger.error({ reqId, err }, 'unhandled error');
      response = Response.json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }, { status: 500 });
    }
    await sendWebResponse(res, response);
    logRequest(logger, reqId, view.method, path, response.status, start);
  }

  return { path, handles: (url) => requestPath(url) === path, documents: serverCardDocuments(serviceName, basePath, options.websitePath), fetch, handleNode };
}

/** `withBody` false: a host's parser has read the body already, so the stream is left alone. */
function toWebRequest(req: IncomingMessage, url: string, signal: AbortSignal, withBody: boolean): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  const hasBody = withBody && req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(url, {
    method: req.method ?? 'GET',
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  });
}

/** Streams a web `Response` (JSON or a long-lived SSE stream) to the client. */
async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name)) res.setHeader(name, value);
  });
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res).catch(() => {
    // The client went away mid-stream; the abort signal has told the SDK already.
  });
}

