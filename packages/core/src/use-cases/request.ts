import { Unauthenticated } from '../errors.ts';

/** A request body as `JSON.parse` gave it, not yet checked: the use case's schema checks the rest. */
export type ParsedBody = null | boolean | number | string | readonly unknown[] | { readonly [key: string]: unknown };

/**
 * Reads a request body: called by a use case only after its rate limit has counted the request, so
 * even a body that cannot be read counts. Its rejection is the use case's failure, as it is.
 */
export type ReadBody = () => Promise<unknown>;

/** A use case's request body: the parsed JSON value, or the function that reads it (see `ReadBody`). */
export type RequestBody = ParsedBody | ReadBody;

/** What the session operations need: only the token, so a transport computes nothing else. */
export interface SessionMeta {
  /**
   * The session token the client presented, if any; or several, in the order the client sent them
   * (a transport may carry several: a browser holds one cookie per path and domain, so a stale or
   * planted one may come before the live one). The first that names a live session is used.
   */
  readonly sessionToken?: string | readonly string[] | null;
}

/** What the caller knows about the request besides its body. */
export interface RequestMeta extends SessionMeta {
  /**
   * The client's IP address in any spelling Node accepts; the core canonicalises it (see
   * `canonicalIp`). Anything that is not an IP address counts as the one shared client `unknown`.
   */
  readonly clientIp: string;
  readonly userAgent?: string | null;
  /**
   * Device proofs the client presented (see device-proofs.ts), opaque to the transport: at login, a
   * genuine one for the account moves the attempt from the account's failure limit to its own.
   */
  readonly deviceProof?: string | readonly string[] | null;
}

export function readBody(body: RequestBody): Promise<unknown> | unknown {
  return typeof body === 'function' ? body() : body;
}

/**
 * `use(token)` for each presented token in turn until one does not throw `Unauthenticated`; only the
 * case of several tokens comes here, so the usual single token costs nothing more.
 */
export async function firstLive<T>(tokens: readonly string[], use: (token: string) => Promise<T>): Promise<T> {
  for (const token of tokens) {
    try {
      return await use(token);
    } catch (error) {
      if (!(error instanceof Unauthenticated)) throw error;
    }
  }
  throw new Unauthenticated();
}
