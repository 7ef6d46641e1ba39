import type { HttpAnswer, HttpRequest } from './http-types.ts';

/**
 * A read-only resource that `createHttpApi` serves with GET and HEAD beside the operations (its
 * `documents` option): routed, answered 405 for other methods, and given CORS and `Vary` as it
 * declares. `@sl-accounts/service/discovery` makes the discovery documents as such routes.
 */
export interface DocumentRoute {
  /** The path below the mount path (`/openapi.json`), or at the origin's root for `/.well-known/` ones. */
  readonly path: string;
  /** Public documents: any origin may read them from a browser (CORS `*`, preflight answered). */
  readonly cors?: boolean;
  /**
   * Whether the document is written from the base URL. Without `PUBLIC_URL` such a document takes
   * it from the request (`Host`, or trusted forwarded headers), answers 400 when that is not a
   * valid host, and sends `Vary` for those headers. Other documents get a placeholder base.
   */
  readonly usesBase?: boolean;
  /** The name under which `GET /` (the discovery service index) links the document, if it does. */
  readonly indexAs?: string;
  /**
   * The answer, given the request and the base URL (the origin and the mount path). It is sent as
   * it is, with CORS headers when `cors`, and its own `Vary` kept beside the origin's.
   */
  render(request: HttpRequest, base: string): HttpAnswer | Promise<HttpAnswer>;
}
