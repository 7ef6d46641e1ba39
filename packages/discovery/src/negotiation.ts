/**
 * Proactive negotiation (RFC 9110 12): which representation of a document a client asked for, by
 * `Accept` (media types), decided by `negotiator`: by weight, then by how specific the range that
 * names an offer is, then by the order of the client's header, then by the order of the offers.
 */
import Negotiator from 'negotiator';

/**
 * The media type of `offers` the client prefers. Without an `Accept` header, or with an empty one,
 * the first offer (negotiator would read an empty header as accepting nothing); `null` when the
 * client accepts none of them.
 */
export function preferredType(accept: string | undefined, offers: readonly string[]): string | null {
  if (accept === undefined || accept.trim() === '') return offers[0] ?? null;
  return new Negotiator({ headers: { accept } }).mediaType([...offers]) ?? null;
}
