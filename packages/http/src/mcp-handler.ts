import type { HttpAnswer, HttpRequest } from './http-types.ts';

/**
 * What the contract hands `<base>/mcp` to: the shape of `createMcpEndpoint(...)` of
 * `@sl-accounts/service/mcp`, copied here so that neither the contract nor any host adapter needs the MCP
 * SDK. Every request to that path, whatever its method, goes to `handle` with its body unread.
 */
export interface McpHandler {
  /**
   * The answer to one request to `/mcp`: never throws (a failure is a JSON-RPC error answer). Its
   * body may be a stream (an event stream), which the host pipes out as it comes. The contract adds
   * the request id and `X-Content-Type-Options` to its headers, and writes the log line.
   */
  handle(request: HttpRequest, context: McpContext): Promise<HttpAnswer>;
}

/** What the contract already knows of a request to `/mcp`, so the endpoint judges it alike. */
export interface McpContext {
  /** The request's id: on the answer and on every log line about it. */
  readonly requestId: string;
  /** The client's address as the rate limits count it (trusted proxies considered). */
  readonly clientIp: string;
  /** The service's absolute URL, mount path included: `publicUrl`, else the request's checked origin (`http://localhost` without a valid one). */
  readonly baseUrl: string;
}
