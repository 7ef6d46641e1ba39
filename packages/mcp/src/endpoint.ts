/**
 * `/mcp` on Streamable HTTP (official SDK, stateless): a fetch-style handler any host can mount, and
 * a node:http bridge for hosts that hold a request and a response (node:http, Koa, Fastify).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { createMcpHandler, localhostAllowedOrigins, originValidationResponse } from '@modelcontextprotocol/server';
import { DEFAULT_SERVICE_NAME, type Accounts, type RequestMeta } from '@sl/core';
import {
  BODY_LIMIT_BYTES,
  HttpError,
  baseUrlOf,
  clientAddress,
  isJsonMediaType,
  logRequest,
  readJsonBody,
  requestIdOf,
  requestPath,
  silentLogger,
  type DocumentRoute,
  type HttpRequest,
  type Logger,
} from '@sl/http';
import { batchRefusal } from './batch.ts';
import { optionsResponse, withCors } from './cors.ts';
import { MCP_PATH, createMcpServer } from './mcp-server.ts';
import { serverCardDocuments } from './server-card.ts';

export interface McpEndpointOptions {
  readonly accounts: Accounts;
  readonly serviceName?: string;
  /** `PUBLIC_URL`: resource URIs and the server card use it; browsers on its origin may call /mcp. */
  readonly publicUrl?: string | undefined;
  /** Trusted proxy hops, as for the HTTP API: the same client address counts against the same limits. */
  readonly trustProxy?: number;
  readonly logger?: Logger;
}

/** Who is calling, as the host determined it. */
export interface McpCaller {
  readonly clientIp: string;
  readonly userAgent?: string | null;
  /** The base URL for resource URIs when no `publicUrl` is configured. */
  readonly baseUrl: string;
}

export interface McpEndpoint {
  /** The path the endpoint serves: `/mcp`. */
  readonly path: string;
  /** Whether a request target (`req.url`) is for this endpoint; hosts route by this. */
  handles(url: string): boolean;
  /** The server card, as documents for the HTTP API's `documents` option. */
  readonly documents: readonly DocumentRoute[];
  /** Web-standard: for hosts that speak `Request`/`Response`. */
  fetch(request: Request, caller: McpCaller): Promise<Response>;
  /** node:http: answers on `res` directly (Koa: set `ctx.respond = false` first), with the request log line. */
  handleNode(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** Node's server manages the connection; these must not be copied from a web `Response`. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { accounts, publicUrl, trustProxy = 0, logger = silentLogger } = options;
  const serviceName = options.serviceName ?? DEFAULT_SERVICE_NAME;
  // Browsers may reach /mcp only from this service's public origin or from localhost (DNS-rebinding
  // protection, as the MCP transport spec requires). Clients that send no Origin are not browsers.
  const allowedOrigins = [...localhostAllowedOrigins(), ...(publicUrl ? [new URL(publicUrl).hostname] : [])];

  async function fetch(request: Request, caller: McpCaller): Promise<Response> {
    const rejected = originValidationResponse(request, allowedOrigins);
    if (rejected) return rejected;
    // From here the origin is allowed (or absent): its pages may read the answer.
    const origin = request.headers.get('origin');
    if (request.method === 'OPTIONS') return optionsResponse(origin);
    return withCors(await answer(request, caller), origin);
  }

  async function answer(request: Request, caller: McpCaller): Promise<Response> {
    const body = await readBody(request);
    if (body instanceof Response) return body;
    const meta: RequestMeta = { clientIp: caller.clientIp, userAgent: caller.userAgent ?? null };
    const base = publicUrl ?? caller.baseUrl;
    const handler = createMcpHandler(() => createMcpServer(accounts, serviceName, base, meta), {
      maxRequestBodySize: BODY_LIMIT_BYTES,
      onerror: (err) => logger.debug({ err }, 'mcp request rejected'),
    });
    try {
      return await handler.fetch(request, body);
    } finally {
      await handler.close();
    }
  }

  async function handleNode(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const start = performance.now();
    const view: HttpRequest = { method: req.method ?? 'GET', url: req.url ?? MCP_PATH, headers: req.headers, remoteAddress: req.socket.remoteAddress, secure: 'encrypted' in req.socket, body: null };
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
      const request = toWebRequest(req, `http://localhost${MCP_PATH}${query < 0 ? '' : view.url.slice(query)}`, aborted.signal);
      response = await fetch(request, { clientIp: clientAddress(view, trustProxy, logger), userAgent: req.headers['user-agent'] || null, baseUrl: baseUrlOf(view, undefined, trustProxy) });
    } catch (err) {
      logger.error({ reqId, err }, 'unhandled error');
      response = Response.json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }, { status: 500 });
    }
    await sendWebResponse(res, response);
    logRequest(logger, reqId, view.method, MCP_PATH, response.status, start);
  }

  return { path: MCP_PATH, handles: (url) => requestPath(url) === MCP_PATH, documents: serverCardDocuments(serviceName), fetch, handleNode };
}

/**
 * Reads a JSON POST body under the JSON API's rules (64 KiB after gzip, deflate or br; UTF-8) and
 * applies the batch rules, for the SDK to take as `parsedBody`; or the error answer. Other requests
 * go to the SDK as they are: it answers a wrong media type itself.
 */
async function readBody(request: Request): Promise<{ parsedBody?: unknown } | Response> {
  if (request.method !== 'POST' || !isJsonMediaType(request.headers.get('content-type') ?? undefined)) return {};
  let parsedBody: unknown;
  try {
    const headers = Object.fromEntries(request.headers);
    parsedBody = await readJsonBody({ method: request.method, url: MCP_PATH, headers, remoteAddress: undefined, body: request.body });
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return jsonRpcError(error.status, error.status === 400 ? -32700 : -32000, error.message);
  }
  const refusal = batchRefusal(parsedBody, request.headers.get('mcp-protocol-version'));
  return refusal ? jsonRpcError(refusal.status, -32600, refusal.message) : { parsedBody };
}

/** A JSON-RPC error answer to no request in particular, as the SDK writes its own. */
function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

function toWebRequest(req: IncomingMessage, url: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
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
