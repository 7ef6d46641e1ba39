/**
 * Proactive negotiation (RFC 9110 12): which representation of a document a client asked for, by
 * `Accept` (media types) and `Accept-Encoding` (content codings), decided by `negotiator`: by
 * weight, then by how specific the range that names an offer is, then by the order of the client's
 * header, then by the order of the offers.
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

/**
 * The content coding of `offers` (in the server's order of preference, which breaks ties) the client
 * accepts with the highest weight; else `identity`, which needs no mention to be acceptable (RFC
 * 9110 12.5.3; a client that refuses even identity gets it too, rather than a 406). `x-gzip` is
 * offered as another name of gzip, which RFC 9110 8.4.1.3 asks a recipient to treat alike.
 */
export function preferredEncoding(acceptEncoding: string | undefined, offers: readonly string[]): string {
  const aliases = offers.includes('gzip') ? ['x-gzip'] : [];
  const available = [...offers, ...aliases, 'identity'];
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } });
  // negotiator 1.x takes the server's order for ties (`preferred`); @types/negotiator 0.6 predates it.
  const encoding = negotiator.encoding.bind(negotiator) as (available: readonly string[], options: { readonly preferred: readonly string[] }) => string | undefined;
  const chosen = encoding(available, { preferred: available });
  return chosen === 'x-gzip' ? 'gzip' : (chosen ?? 'identity');
}
