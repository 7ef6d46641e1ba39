/**
 * `/mcp` as a web-standard handler over the official SDK (Streamable HTTP, stateless): the origin
 * check, CORS, the body rules, and a fresh MCP server per request. Importing the SDK costs 50-100 ms,
 * so the endpoint imports this module on its first request, not at start-up (see `endpoint.ts`).
 */
import { createMcpHandler, localhostAllowedOrigins, originValidationResponse } from '@modelcontextprotocol/server';
import type { Accounts, RequestMeta } from '@sl-accounts/service/core';
import { BODY_LIMIT_BYTES, HttpError, isJsonMediaType, readJsonBody, type HostBody, type Logger } from '@sl-accounts/service/http';
import { batchRefusal } from './batch.ts';
import { optionsResponse, withCors } from './cors.ts';
import type { McpCaller, McpFetch } from './caller.ts';
import { jsonRpcError } from './json-rpc.ts';
import { createMcpServer } from './mcp-server.ts';
import { MCP_PATH } from './protocol.ts';

export interface McpFetchOptions {
  readonly accounts: Accounts;
  readonly serviceName: string;
  readonly publicUrl: string | undefined;
  readonly logger: Logger;
}

export function createMcpFetch({ accounts, serviceName, publicUrl, logger }: McpFetchOptions): McpFetch {
  // Browsers may reach /mcp only from this service's public origin or from localhost (DNS-rebinding
  // protection, as the MCP transport spec requires). Clients that send no Origin are not browsers.
  const allowedOrigins = [...localhostAllowedOrigins(), ...(publicUrl ? [new URL(publicUrl).hostname] : [])];

  async function answer(request: Request, caller: McpCaller): Promise<Response> {
    const body = await readBody(request, caller.hostBody);
    if (body instanceof Response) return body;
    const meta: RequestMeta = { clientIp: caller.clientIp, userAgent: caller.userAgent ?? null };
    const handler = createMcpHandler(() => createMcpServer(accounts, serviceName, caller.baseUrl, meta), {
      maxRequestBodySize: BODY_LIMIT_BYTES,
      onerror: (err) => logger.debug({ err }, 'mcp request rejected'),
    });
    try {
      return await handler.fetch(request, body);
    } finally {
      await handler.close();
    }
  }

  return async (request, caller) => {
    const rejected = originValidationResponse(request, allowedOrigins);
    if (rejected) return rejected;
    // From here the origin is allowed (or absent): its pages may read the answer.
    const origin = request.headers.get('origin');
    if (request.method === 'OPTIONS') return optionsResponse(origin);
    return withCors(await answer(request, caller), origin);
  };
}

/**
 * Reads a JSON POST body under the JSON API's rules (64 KiB after gzip, deflate or br; UTF-8) and
 * applies the batch rules, for the SDK to take as `parsedBody`; or the error answer. Other requests
 * go to the SDK as they are: it answers a wrong media type itself.
 */
async function readBody(request: Request, hostBody: HostBody | undefined): Promise<{ parsedBody?: unknown } | Response> {
  if (request.method !== 'POST' || !isJsonMediaType(request.headers.get('content-type') ?? undefined)) return {};
  let parsedBody: unknown;
  try {
    const headers = Object.fromEntries(request.headers);
    parsedBody = await readJsonBody({ method: request.method, url: MCP_PATH, headers, remoteAddress: undefined, body: request.body, ...(hostBody ? { hostBody } : {}) });
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return jsonRpcError(error.status, error.status === 400 ? -32700 : -32000, error.message);
  }
  const refusal = batchRefusal(parsedBody, request.headers.get('mcp-protocol-version'));
  return refusal ? jsonRpcError(refusal.status, -32600, refusal.message) : { parsedBody };
}
