/**
 * CORS for `/mcp`: a page on an allowed origin (localhost, or the `PUBLIC_URL` host: the origins that
 * pass the endpoint's DNS-rebinding check) may call it from a browser. Pages elsewhere never get this
 * far: their requests, preflights included, are refused with 403 first.
 */

/** What an MCP client sends besides safelisted headers (the SDK's Streamable HTTP client sends these). */
const ALLOWED_HEADERS = ['Content-Type', 'Content-Encoding', 'Accept', 'Authorization', 'MCP-Protocol-Version', 'Mcp-Session-Id', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID'];

/** What a page may read of the answers besides safelisted headers. */
const EXPOSED_HEADERS = ['MCP-Protocol-Version', 'Mcp-Session-Id', 'X-Request-Id'];

/**
 * The methods a page may send. The endpoint is stateless, so GET (a stream) and DELETE (a session)
 * are answered 405; allowing them lets a browser client see that answer rather than a CORS failure.
 */
const ALLOWED_METHODS = 'GET, POST, DELETE';

/** What the endpoint itself takes (`Allow` of a plain OPTIONS). */
const ALLOW = 'POST, OPTIONS';

/**
 * The answer to `OPTIONS /mcp` from an allowed origin: a CORS preflight when it names one (`Origin`),
 * else the methods the endpoint takes.
 */
export function optionsResponse(origin: string | null): Response {
  if (!origin) return new Response(null, { status: 204, headers: { allow: ALLOW } });
  return new Response(null, {
    status: 204,
    headers: {
      allow: ALLOW,
      'access-control-allow-origin': origin,
      'access-control-allow-methods': ALLOWED_METHODS,
      'access-control-allow-headers': ALLOWED_HEADERS.join(', '),
      'access-control-max-age': '600',
      vary: 'Origin',
    },
  });
}

/** `response`, readable by a page on `origin` (an allowed one) when the request came from a page. */
export function withCors(response: Response, origin: string | null): Response {
  const headers = new Headers(response.headers);
  headers.append('vary', 'Origin');
  if (origin) {
    headers.set('access-control-allow-origin', origin);
    headers.set('access-control-expose-headers', EXPOSED_HEADERS.join(', '));
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
