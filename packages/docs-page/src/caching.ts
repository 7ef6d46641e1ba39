/**
 * The page's scripts live at URLs that name their content, so caches may keep them for good.
 */
import { createHash } from 'node:crypto';

/** For resources whose URL names their content (a hash): a year, never revalidated. */
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The first 27 base64url characters (162 bits) of the SHA-256 of `body`. */
export function contentHash(body: string | Uint8Array): string {
  return createHash('sha256').update(body).digest('base64url').slice(0, 27);
}
