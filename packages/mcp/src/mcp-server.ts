/**
 * The MCP server: its tools call the same core use cases as the JSON API, with the same client IP,
 * so the same rate limits apply; its resources are the OpenAPI document and auth.md.
 */
import {
  McpServer,
  fromJsonSchema,
  type CallToolResult,
  type JsonSchemaType,
  type JsonSchemaValidator,
  type jsonSchemaValidator,
} from '@modelcontextprotocol/server';
import { isDomainError, type Accounts, type RequestMeta } from '@sl-accounts/service/core';
import { API_VERSION, COMPONENT_SCHEMAS, authMarkdown, openApiJson } from '@sl-accounts/service/discovery';
import type { ErrorBody } from '@sl-accounts/service/http';
import { MCP_PROTOCOL_VERSIONS } from './protocol.ts';

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
/**
 * The health tool's output, as the OpenAPI document's Health schema: made once here, where the zod
 * schema was converted to JSON Schema again for every server, one per request (13 % of the CPU of
 * a `tools/list`, 2026-12-07). Its answers are still checked against it by the SDK's own validator
 * (an answer off the schema is a tool error: test/discovery/mcp.test.ts would fail).
 */
const healthOutput = fromJsonSchema<Record<string, unknown>>(COMPONENT_SCHEMAS.Health as JsonSchemaType);

/**
 * Domain errors a tool reports as a tool error (the caller can act on them); anything else is a bug.
 * The structured content is the body `POST /api/contact` answers (every field issue of a 400), plus
 * `retryAfterSeconds` when rate limited; the text says the same in one line.
 */
function toolError(error: unknown): CallToolResult {
  if (!isDomainError(error)) throw error;
  const body: ErrorBody & { retryAfterSeconds?: number } = {
    ok: false,
    error: error.message,
    code: error.code,
    ...(error.code === 'validation' ? { issues: error.issues } : {}),
    ...(error.code === 'rate_limited' ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
  };
  const text =
    error.code === 'validation' ? `Invalid request: ${error.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`
    : error.code === 'rate_limited' ? `${error.message} (Retry-After: ${error.retryAfterSeconds})`
    : error.message;
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { ...body } };
}

/** One server per request: the SDK's handler is stateless, and each server knows its caller's IP. */
export function createMcpServer(accounts: Accounts, serviceName: string, base: string, meta: RequestMeta): McpServer {
  const server = new McpServer(
    { name: serviceName, version: API_VERSION },
    {
      instructions: `Tools of the ${serviceName} account and contact service. send-contact-message is rate limited per client IP. The OpenAPI description and the auth guide are resources.`,
      supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS],
      // The tools and resources are fixed: no list ever changes, so no client should wait for a notice.
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    },
  );

  server.registerTool(
    'health',
    {
      title: 'Health check',
      description: 'Reports whether the service and its store answer.',
      outputSchema: healthOutput,
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
      contents: [{ uri: uri.href, mimeType: 'application/openapi+json', text: openApiJson(base, serviceName) }],
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

