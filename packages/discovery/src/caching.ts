/**
 * Validators, lifetimes and content codings of the documents: every document answer carries an
 * `ETag` and a `Cache-Control`, is compressed (br, else gzip) for a client that asks for it, and a
 * client whose copy is current gets 304 with no body.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import fresh from 'fresh';
import { headerValue, isStreamBody, type HttpAnswer, type HttpRequest } from '@sl-accounts/service/http';
import { preferredEncoding } from './negotiation.ts';

/**
 * How long caches may keep a discovery document: an hour, in any cache. The Agent Skills discovery
 * (0.2.0) and MCP server-card drafts ask servers for caching headers; an hour keeps crawlers from
 * polling while a changed deployment shows within the hour.
 */
export const DOCUMENT_CACHE_CONTROL = 'public, max-age=3600';

/**
 * A strong entity tag of a representation: its content type and its bytes, so the same bytes sent
 * as another type (content negotiation) are another entity.
 */
export function representationTag(type: string, body: string | Uint8Array): string {
  return `"${createHash('sha256').update(type).update('\n').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * Whether the client's `If-None-Match` names `etag` (weak comparison, RFC 9110 13.1.2), by `fresh`.
 * It is given the one precondition alone: `fresh` also calls any request with `Cache-Control:
 * no-cache` stale (a cache's view), where an origin server evaluates the precondition all the same
 * (RFC 9110 13.2.2), so a proxy revalidating for such a client still gets its 304.
 */
function isFresh(request: HttpRequest, etag: string): boolean {
  return fresh({ 'if-none-match': headerValue(request.headers, 'if-none-match') }, { etag });
}

/** Bodies smaller than this go out as they are: a coding would save a few bytes and cost a round of zlib. */
export const COMPRESS_FROM_BYTES = 1024;
/** The codings offered, best first: brotli is ~15 % smaller than gzip on these documents. */
const CODINGS = ['br', 'gzip'] as const;
type Coding = (typeof CODINGS)[number];

const ENCODERS: Readonly<Record<Coding, (body: Uint8Array) => Promise<Buffer>>> = {
  // Quality 9: within a few per cent of 11 on JSON and Markdown, at a tenth of the time.
  br: (body) => promisify(brotliCompress)(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength } }),
  gzip: (body) => promisify(gzip)(body, { level: 9 }),
};

/**
 * Compressed bodies by coding and identity tag: a document's bytes change only with its base URL
 * (a mount, a Host when no PUBLIC_URL is set), so each is compressed once, on libuv's pool. Bounded:
 * a request's own Host can make a new document, and the oldest entry goes first.
 */
const compressed = new Map<string, Promise<Buffer>>();
const MAX_COMPRESSED = 256;

function encode(coding: Coding, tag: string, body: Uint8Array): Promise<Buffer> {
  const key = `${coding} ${tag}`;
  let bytes = compressed.get(key);
  if (!bytes) {
    if (compressed.size >= MAX_COMPRESSED) compressed.delete(compressed.keys().next().value!);
    bytes = ENCODERS[coding](body);
    bytes.catch(() => compressed.delete(key));
    compressed.set(key, bytes);
  }
  return bytes;
}

/**
 * A document's 200 answer with an `ETag` (its own, else one from the body) and a `Cache-Control`
 * (its own, else `DOCUMENT_CACHE_CONTROL`), in the content coding the client prefers (`br`, `gzip`
 * or none, negotiated on `Accept-Encoding` with `Vary: Accept-Encoding`; each coding is another
 * representation, with its own tag: `"<tag>-br"`); 304 with the same validators and no body when
 * the client's copy of that representation is current. An answer that chose its coding itself (the
 * docs page's bundle), one under COMPRESS_FROM_BYTES and other statuses pass as they are, validators
 * added to a 200.
 */
export async function withValidators(request: HttpRequest, answer: HttpAnswer): Promise<HttpAnswer> {
  if (answer.status !== 200 || answer.body === null || isStreamBody(answer.body)) return answer;
  const own = answer.headers.etag;
  const type = answer.headers['content-type'];
  const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
  const etag = typeof own === 'string' ? own : representationTag(typeof type === 'string' ? type : '', body);
  const headers: Record<string, string | string[]> = { 'cache-control': DOCUMENT_CACHE_CONTROL, ...answer.headers, etag };
  if (answer.headers['content-encoding'] !== undefined || body.byteLength < COMPRESS_FROM_BYTES) {
    return isFresh(request, etag) ? notModified(headers) : { ...answer, headers };
  }
  const vary = [answer.headers.vary, 'Accept-Encoding'].filter(Boolean).join(', ');
  const coding = preferredEncoding(headerValue(request.headers, 'accept-encoding'), CODINGS) as Coding | 'identity';
  if (coding === 'identity') {
    const plain = { ...headers, vary };
    return isFresh(request, etag) ? notModified(plain) : { ...answer, headers: plain };
  }
  const tag = `${etag.slice(0, -1)}-${coding}"`;
  const encodedHeaders = { ...headers, vary, etag: tag, 'content-encoding': coding };
  if (isFresh(request, tag)) return notModified(encodedHeaders);
  return { ...answer, headers: encodedHeaders, body: await encode(coding, etag, body) };
}

/**
 * 304 with the 200's headers but those that describe a body (RFC 9110 15.4.5): it has none, and Koa
 * would drop them anyway, so every host sends the same answer.
 */
function notModified(headers: HttpAnswer['headers']): HttpAnswer {
  const kept = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'content-type' && name !== 'content-length' && name !== 'content-encoding'));
  return { status: 304, headers: kept, body: null };
}
