/**
 * `/mcp` for the in-process test servers (in-process.ts). The contract does not answer `/mcp`
 * itself yet: each host hands it to the endpoint's node:http bridge (`handleNode`). In-process,
 * the endpoint's web-standard `fetch` takes it instead, with the caller and headers that bridge
 * gives it (client address, base URL, request id, nosniff), and its log line. Once `api.handle`
 * answers `/mcp`, this file goes.
 */
import { baseUrlOf, clientAddress, logRequest, requestIdOf, type HttpRequest } from '@sl-accounts/http';
import type { Service } from '@sl-accounts/server';

/** A request to `/mcp` as the in-process fetch took it. */
interface McpRequest {
  readonly method: string;
  readonly target: string;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array | null;
}

export function mcpInProcess(service: Service, trustProxy: number): (sent: McpRequest) => Promise<Response> {
  const { mcp, api, logger } = service;
  return async (sent) => {
    const start = performance.now();
    const view: HttpRequest = { method: sent.method, url: sent.target, headers: sent.headers, remoteAddress: '127.0.0.1', body: null };
    const reqId = requestIdOf(view, trustProxy);
    const query = sent.target.indexOf('?');
    const hasBody = sent.body !== null && sent.method !== 'GET' && sent.method !== 'HEAD';
    const request = new Request(`http://localhost/mcp${query < 0 ? '' : sent.target.slice(query)}`, {
      method: sent.method,
      headers: sent.headers,
      ...(hasBody ? { body: sent.body as Uint8Array<ArrayBuffer> } : {}),
    });
    const caller = { clientIp: clientAddress(view, trustProxy, logger), userAgent: sent.headers['user-agent'] || null, baseUrl: baseUrlOf(view, undefined, trustProxy) + api.basePath };
    const response = await mcp.fetch(request, caller);
    const headers = new Headers(response.headers);
    headers.set('x-content-type-options', 'nosniff');
    headers.set('x-request-id', reqId);
    // The whole answer is read here, as a client would: an event stream of one answer ends with it.
    const body = sent.method === 'HEAD' || !response.body ? null : new Uint8Array(await response.arrayBuffer());
    logRequest(logger, reqId, sent.method, mcp.path, response.status, start);
    return new Response(body, { status: response.status, headers });
  };
}
