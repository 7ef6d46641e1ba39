/**
 * `/mcp` on Streamable HTTP (official SDK, stateless), as the contract's `McpHandler`: the HTTP
 * contract of `@sl-accounts/service/http` routes `<base>/mcp` here (`createHttpApi({ mcp })`), so every host
 * serves it through its one adapter. A web-standard `fetch` is there too. The SDK is imported on the
 * first request to /mcp, not at start-up.
 */
import { DEFAULT_SERVICE_NAME, type Accounts } from '@sl-accounts/service/core';
import { headerValue, normaliseBasePath, silentLogger, type DocumentRoute, type HttpAnswer, type HttpRequest, type Logger, type McpContext, type McpHandler } from '@sl-accounts/service/http';
import type { McpCaller, McpFetch } from './caller.ts';
import { jsonRpcError } from './json-rpc.ts';
import { lazily } from './lazily.ts';
import { MCP_PATH } from './protocol.ts';
import { serverCardDocuments } from './server-card.ts';

/** `createMcpEndpoint`'s options. */
export interface McpEndpointOptions {
  readonly accounts: Accounts;
  readonly serviceName?: string;
  /** `PUBLIC_URL`: browsers on its origin may call /mcp (the contract gives the base URL of each request). */
  readonly publicUrl?: string | undefined;
  readonly logger?: Logger;
  /**
   * The path, under the base path, of a page about the service (`API_REFERENCE_PATH` of
   * `@sl-accounts/docs-page` when it is served): the server card's `websiteUrl`. Unset: the card names none.
   */
  readonly websitePath?: string;
}

/** What `createMcpEndpoint` gives: the contract's MCP handler, a fetch handler and the server card documents. */
export interface McpEndpoint extends McpHandler {
  /**
   * The server card at `/.well-known/mcp/server-card.json` and `<basePath>/mcp/server-card`, as
   * documents for `discoveryDocuments({ extra })` of `@sl-accounts/service/discovery`, pointing at `<basePath>/mcp`.
   */
  documents(basePath?: string): DocumentRoute[];
  /**
   * Web-standard: for hosts that speak `Request`/`Response` and mount /mcp by themselves. The first
   * call imports the SDK; while it cannot be loaded, every call answers 503 (a JSON-RPC error) and
   * the next one tries again.
   */
  fetch(request: Request, caller: McpCaller): Promise<Response>;
}

/** Node's server manages the connection; these must not be copied from a web `Response`. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/** The endpoint: `/mcp` for `createHttpApi({ mcp })` (and as a fetch handler), and the server card documents. */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { accounts, publicUrl, logger = silentLogger } = options;
  const serviceName = options.serviceName ?? DEFAULT_SERVICE_NAME;
  const handler = lazily(async () => {
    try {
      const { createMcpFetch } = await import('./fetch-handler.ts');
      return createMcpFetch({ accounts, serviceName, publicUrl, logger });
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

  async function handle(request: HttpRequest, context: McpContext): Promise<HttpAnswer> {
    let response: Response;
    try {
      // The web Request only carries method, headers, query and body to the SDK: its URL is a fixed
      // origin, so no Host header, however odd, can make it unparsable. Resource URIs use `baseUrl`.
      const query = request.url.indexOf('?');
      const url = `http://localhost${MCP_PATH}${query < 0 ? '' : request.url.slice(query)}`;
      const { hostBody } = request;
      const caller: McpCaller = { clientIp: context.clientIp, userAgent: headerValue(request.headers, 'user-agent') || null, baseUrl: context.baseUrl };
      response = await fetch(toWebRequest(request, url, hostBody === undefined), hostBody ? { ...caller, hostBody } : caller);
    } catch (err) {
      logger.error({ reqId: context.requestId, err }, 'unhandled error');
      response = Response.json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }, { status: 500 });
    }
    return toAnswer(response);
  }

  return {
    documents: (basePath = '') => serverCardDocuments(serviceName, normaliseBasePath(basePath), options.websitePath),
    fetch,
    handle,
  };
}

/** `withBody` false: a host's parser has read the body already, so the stream is left alone. */
function toWebRequest(request: HttpRequest, url: string, withBody: boolean): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    for (const v of typeof value === 'string' ? [value] : (value ?? [])) headers.append(name, v);
  }
  const hasBody = withBody && request.body !== null && request.method !== 'GET' && request.method !== 'HEAD';
  return new Request(url, {
    method: request.method,
    headers,
    ...(hasBody ? { body: ReadableStream.from(request.body!), duplex: 'half' } : {}),
  });
}

/**
 * The SDK's `Response` as the contract's answer: an event stream stays a stream (the host pipes it
 * out as events come, and cancels it when the client goes, which ends the SDK's side); any other
 * body is read whole, so it goes out with its length like every other answer.
 */
async function toAnswer(response: Response): Promise<HttpAnswer> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name)) headers[name] = value;
  });
  const { body } = response;
  if (body === null) return { status: response.status, headers, body: null };
  if (/^text\/event-stream\b/i.test(response.headers.get('content-type') ?? '')) return { status: response.status, headers, body };
  return { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()) };
}
