/**
 * JSON-RPC batches on /mcp. Only protocol revision 2025-03-26 has them (2025-06-18 removed them, and
 * 2026-07-28 has none); where they are allowed, one batch may not cost more than one request of the
 * JSON API: a few cheap messages, and at most one that does work.
 */

/** The one protocol revision with batches; also what a client that names no revision speaks. */
export const BATCH_PROTOCOL_VERSION = '2025-03-26';

/** Most messages in one batch. */
export const MAX_BATCH_MESSAGES = 10;

/**
 * Methods whose answer costs a store statement or a whole document (the OpenAPI description is
 * ~20 KB): a batch may hold one. `health` calls also share one ping (see the core's `health`).
 */
const WORKING_METHODS = new Set(['tools/call', 'resources/read']);

/** Why a batch is refused, with the HTTP status; `undefined` when `body` is no batch or is allowed. */
export function batchRefusal(body: unknown, protocolVersion: string | null): { readonly status: number; readonly message: string } | undefined {
  if (!Array.isArray(body)) return undefined;
  // The transport spec: without an MCP-Protocol-Version header, assume 2025-03-26.
  const version = protocolVersion ?? BATCH_PROTOCOL_VERSION;
  if (version !== BATCH_PROTOCOL_VERSION) return { status: 400, message: `Invalid Request: protocol ${version} has no JSON-RPC batches` };
  if (body.length > MAX_BATCH_MESSAGES) return { status: 400, message: `Invalid Request: a batch holds at most ${MAX_BATCH_MESSAGES} messages` };
  const working = body.filter((message: unknown) => WORKING_METHODS.has((message as { method?: unknown } | null)?.method as string)).length;
  if (working > 1) return { status: 400, message: `Invalid Request: a batch holds at most one of ${[...WORKING_METHODS].join(', ')}` };
  return undefined;
}
