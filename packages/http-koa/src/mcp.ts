/**
 * `/mcp`: an MCP server on Streamable HTTP (official SDK, stateless), mounted in Koa. Its tools call
 * the same core use cases as the JSON API, with the same client IP, so the same rate limits apply.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import type { Logger } from 'pino';
import {
  McpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
  createMcpHandler,
  fromJsonSchema,
  localhostAllowedOrigins,
  originValidationResponse,
  type CallToolResult,
  type JsonSchemaType,
  type JsonSchemaValidator,
  type jsonSchemaValidator,
} from '@modelcontextprotocol/server';
import { isDomainError, type Accounts, type RequestMeta } from '@sl/core';
import { BODY_LIMIT_BYTES } from './app.ts';
import { authMarkdown } from './discovery/auth-md.ts';
import { baseUrlOf } from './discovery/base-url.ts';
import { API_VERSION, COMPONENT_SCHEMAS, openApiDocument } from './discovery/openapi.ts';
import { Health } from './discovery/response-schemas.ts';

export const MCP_PATH = '/mcp';

/** The modern revision the SDK's handler serves, then the 2025-era ones its stateless fallback answers. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS];

export interface McpOptions {
  readonly accounts: Accounts;
  readonly serviceName: string;
  readonly publicUrl?: string | undefined;
  readonly logger: Logger;
}

/**
 * Publishes the ContactRequest schema of the OpenAPI document but leaves validation to the use case,
 * which counts the call against the rate limit first, as it does for POST /api/contact.
 */
const validatedByUseCase: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};
const contactInput = fromJsonSchema<Record<string, unknown>>(COMPONENT_SCHEMAS.ContactRequest as JsonSchemaType, validatedByUseCase);

/** Domain errors a tool reports as a tool error (the caller can act on them); anything else is a bug. */
function toolError(error: unknown): CallToolResult {
  if (!isDomainError(error)) throw error;
  const text = error.code === 'rate_limited' ? `${error.message} (Retry-After: ${error.retryAfterSeconds})` : error.message;
  return { isError: true, content: [{ type: 'text', text }] };
}

/** One server per request: the SDK's handler is stateless, and each server knows its caller's IP. */
function createServer(options: McpOptions, base: string, meta: RequestMeta): McpServer {
  const { accounts, serviceName } = options;
  const server = new McpServer(
    { name: serviceName, version: API_VERSION },
    {
      instructions: `Tools of the ${serviceName} account and contact service. send-contact-message is rate limited per client IP. The OpenAPI description and the auth guide are resources.`,
    },
  );

  server.registerTool(
    'health',
    {
      title: 'Health check',
      description: 'Reports whether the service and its store answer.',
      outputSchema: Health,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      const health = await accounts.health();
      return { content: [{ type: 'text', text: JSON.stringify(health) }], structuredContent: { ...health } };
    },
  );

  server.registerTool(
    'send-contact-message',
    {
      title: 'Send a contact message',
      description: 'Sends a message to the operators of the service. Rate limited per client IP, like POST /api/contact.',
      inputSchema: contactInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (args) => {
      try {
        await accounts.contact(args, meta);
        return { content: [{ type: 'text', text: 'Message received.' }] };
      } catch (error) {
        return toolError(error);
      }
    },
  );

  server.registerResource(
    'openapi',
    `${base}/openapi.json`,
    { title: 'OpenAPI description', mimeType: 'application/openapi+json' },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'application/openapi+json', text: JSON.stringify(openApiDocument(base, serviceName)) }],
    }),
  );

  server.registerResource(
    'auth-md',
    `${base}/auth.md`,
    { title: 'Authentication guide for agents', mimeType: 'text/markdown' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: authMarkdown(base, serviceName) }] }),
  );

  return server;
}

function toWebRequest(ctx: Context, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  const hasBody = ctx.method !== 'GET' && ctx.method !== 'HEAD';
  return new Request(ctx.href, {
    method: ctx.method,
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(ctx.req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  });
}

/** Node's server manages the connection; these must not be copied from a web `Response`. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/**
 * Streams a web `Response` (JSON or a long-lived SSE stream) to the client past Koa's body handling,
 * so the route knows when the exchange is over. The status stays on `ctx` for the request log.
 */
async function sendWebResponse(ctx: Context, response: Response): Promise<void> {
  ctx.status = response.status;
  response.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name)) ctx.set(name, value);
  });
  ctx.respond = false;
  if (!response.body) {
    ctx.res.end();
    return;
  }
  ctx.res.flushHeaders();
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), ctx.res).catch(() => {
    // The client went away mid-stream; the abort signal has told the SDK already.
  });
}

export function mcpRoutes(options: McpOptions): (router: Router) => void {
  const { publicUrl, logger } = options;
  // Browsers may reach /mcp only from this service's public origin or from localhost (DNS-rebinding
  // protection, as the MCP transport spec requires). Clients that send no Origin are not browsers.
  const allowedOrigins = [...localhostAllowedOrigins(), ...(publicUrl ? [new URL(publicUrl).hostname] : [])];

  return (router) => {
    router.all(MCP_PATH, async (ctx) => {
      const aborted = new AbortController();
      ctx.res.once('close', () => aborted.abort());
      const request = toWebRequest(ctx, aborted.signal);
      const rejected = originValidationResponse(request, allowedOrigins);
      if (rejected) {
        await sendWebResponse(ctx, rejected);
        return;
      }
      const meta: RequestMeta = { clientIp: ctx.ip, userAgent: ctx.get('User-Agent') || null };
      const base = baseUrlOf(ctx, publicUrl);
      const handler = createMcpHandler(() => createServer(options, base, meta), {
        maxRequestBodySize: BODY_LIMIT_BYTES,
        onerror: (err) => logger.debug({ reqId: ctx.state.reqId, err }, 'mcp request rejected'),
      });
      try {
        await sendWebResponse(ctx, await handler.fetch(request));
      } finally {
        await handler.close();
      }
    });
  };
}
