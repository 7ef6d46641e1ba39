/**
 * What the server card and the routes need to know of /mcp: its path and the protocol revisions it
 * serves. Nothing here imports the SDK, so a process that is never asked for /mcp never loads it.
 */

export const MCP_PATH = '/mcp';

/** The revision the SDK's modern handler serves (stateless, a `_meta` envelope on every request). */
export const MODERN_REVISION = '2026-07-28';

/**
 * The protocol revisions /mcp serves, newest first: the modern one, then the 2025 revisions the SDK's
 * stateless fallback answers over Streamable HTTP (2025-03-26 was the first with that transport).
 * The SDK's own list also names `2024-11-05` (another transport) and `2024-10-07` (never a
 * published revision); neither is offered. The server card lists exactly these; `initialize` and
 * the version errors use them too (a client asking for another 2025-era or older revision is
 * offered the newest 2025 one), and `server/discover` lists the modern ones among them (older ones
 * are negotiated by `initialize`). Written out rather than read from the SDK, which is loaded only
 * on the first /mcp request; a test holds it to the SDK's list.
 */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [MODERN_REVISION, '2025-11-25', '2025-06-18', '2025-03-26'];
