/**
 * Proactive negotiation (RFC 9110 12): which representation of a document a client asked for, by
 * `Accept` (media types) or `Accept-Encoding` (content codings).
 */

interface Preference {
  /** Lower case, parameters other than `q` dropped. */
  readonly value: string;
  readonly q: number;
  /** Position in the header: among equal preferences, the one the client listed first wins. */
  readonly index: number;
}

/** The items of a header such as `text/html, text/*;q=0.8`, with their weights (1 when absent). */
function preferences(header: string): Preference[] {
  return header.split(',').flatMap((item, index) => {
    const [value = '', ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    if (!value) return [];
    const weight = params.find((p) => p.startsWith('q='));
    const q = weight === undefined ? 1 : Number(weight.slice(2));
    return Number.isFinite(q) ? [{ value, q: Math.min(1, Math.max(0, q)), index }] : [];
  });
}

// How closely a media range matches a type: 3 exact, 2 `type/*`, 1 any type, 0 not at all.
function specificity(range: string, type: string): number {
  if (range === type) return 3;
  if (range === '*/*') return 1;
  return range.endsWith('/*') && type.startsWith(range.slice(0, -1)) ? 2 : 0;
}

/**
 * The media type of `offers` the client prefers: by weight, then by how specific the range that
 * names it is, then by the order of the client's header, then by the order of `offers`. Without an
 * `Accept` header, the first offer; `null` when the client accepts none of them.
 */
export function preferredType(accept: string | undefined, offers: readonly string[]): string | null {
  if (accept === undefined || accept.trim() === '') return offers[0] ?? null;
  const ranges = preferences(accept);
  let best: { offer: string; q: number; specific: number; index: number } | null = null;
  for (const offer of offers) {
    // The most specific range that names the offer decides its weight.
    let match: { q: number; specific: number; index: number } | null = null;
    for (const range of ranges) {
      const specific = specificity(range.value, offer);
      if (specific > (match?.specific ?? 0)) match = { q: range.q, specific, index: range.index };
    }
    if (!match || match.q === 0) continue;
    if (!best || match.q > best.q || (match.q === best.q && (match.specific > best.specific || (match.specific === best.specific && match.index < best.index)))) {
      best = { offer, ...match };
    }
  }
  return best?.offer ?? null;
}

/**
 * The content coding of `offers` (in the server's order of preference, which breaks ties) the client
 * accepts with the highest weight; else `identity`, which needs no mention to be acceptable (RFC
 * 9110 12.5.3; a client that refuses even identity gets it too, rather than a 406).
 */
export function preferredEncoding(acceptEncoding: string | undefined, offers: readonly string[]): string {
  if (!acceptEncoding) return 'identity';
  const codings = preferences(acceptEncoding);
  const weight = (coding: string) => codings.find((c) => c.value === coding || (coding === 'gzip' && c.value === 'x-gzip'))?.q ?? codings.find((c) => c.value === '*')?.q ?? 0;
  let best = 'identity';
  let bestQ = 0;
  for (const offer of offers) {
    const q = weight(offer);
    if (q > bestQ) {
      best = offer;
      bestQ = q;
    }
  }
  // A client that weighs identity above every coding gets the bytes as they are.
  const identity = codings.find((c) => c.value === 'identity')?.q;
  return identity !== undefined && identity > bestQ ? 'identity' : best;
}
