/** The types the endpoint and its lazily imported fetch handler share (no runtime code). */
import type { HostBody } from '@sl-accounts/service/http';

/** Who is calling, as the host determined it. */
export interface McpCaller {
  readonly clientIp: string;
  readonly userAgent?: string | null;
  /** The service's absolute URL, mount path included (`PUBLIC_URL`'s when configured): resource URIs start with it. */
  readonly baseUrl: string;
  /** The body as a host's parser left it, when one ran first (then the request's own body is spent). */
  readonly hostBody?: HostBody;
}

/** `/mcp` as a web-standard handler: a request and its caller in, a response out. */
export type McpFetch = (request: Request, caller: McpCaller) => Promise<Response>;
