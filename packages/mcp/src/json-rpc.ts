/** A JSON-RPC error answer to no request in particular, as the SDK writes its own. */
export function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}
