/**
 * Request body rules, the same for the JSON API and /mcp: a JSON media type, an optional content
 * coding (gzip, deflate, br), at most BODY_LIMIT_BYTES after decompression, UTF-8 (RFC 8259 8.1),
 * then JSON.
 */
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { HttpError } from './errors.ts';
import { headerValue, type HostBody, type HttpRequest } from './http-types.ts';
import { measureJson } from './json-size.ts';

/** Largest request body, in bytes after decompression. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** `application/json` or any `+json` type, with or without parameters. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip, // RFC 9110 8.4.1.3: x-gzip is gzip
  deflate: createInflate,
  br: createBrotliDecompress,
};

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Reads and parses the JSON body. Throws HttpError: 400 for another media type, malformed JSON, a
 * body that is not UTF-8 or does not decompress; 413 over the limit; 415 for an unknown coding.
 */
export async function readJsonBody(request: HttpRequest, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  const { headers } = request;
  if (!isJsonMediaType(headerValue(headers, 'content-type'))) throw new HttpError(400, 'Content-Type must be application/json', 'json_required');
  if (request.hostBody) return hostJsonBody(request, request.hostBody, limit);
  return parseJson(decodeUtf8(await readBytes(request, limit)));
}

const notUtf8 = () => new HttpError(400, 'The request body is not valid UTF-8', 'invalid_utf8');

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw notUtf8();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'Malformed JSON body', 'malformed_json');
  }
}

/**
 * The same rules over what a host's parser left. Its decoder has already turned bytes that are not
 * UTF-8 into U+FFFD (iconv-lite in body-parser and co-body, `setEncoding('utf8')` in Fastify), so
 * U+FFFD in text the host decoded is refused as not UTF-8: the two cannot be told apart afterwards.
 * With only the parsed value, the size is the declared length, else the value re-serialised (at most
 * the bytes sent: whitespace is gone).
 */
function hostJsonBody(request: HttpRequest, host: HostBody, limit: number): unknown {
  if ('failed' in host) throw hostBodyError(host.failed, limit);
  if (Number(headerValue(request.headers, 'content-length')) > limit) throw tooLarge(limit);
  if ('text' in host) {
    const { text } = host;
    if (typeof text !== 'string') {
      if (text.byteLength > limit) throw tooLarge(limit);
      return parseJson(decodeUtf8(text));
    }
    if (Buffer.byteLength(text) > limit) throw tooLarge(limit);
    if (text.includes('\uFFFD')) throw notUtf8();
    return parseJson(text);
  }
  if (host.checked) return host.parsed;
  // Measured, not re-serialised: JSON.stringify recurses, and a deeply nested body broke it (json-size.ts).
  const { bytes, replacement } = measureJson(host.parsed, limit);
  if (bytes > limit) throw tooLarge(limit);
  if (replacement) throw notUtf8();
  return host.parsed;
}

/**
 * Whether an error a host met before the service ran is its body parser's: body-parser's and
 * co-body's (`type` such as `entity.parse.failed`, and a 4xx `status`), Fastify's (`FST_ERR_CTP_*`),
 * or a bare SyntaxError from a JSON parser. Hosts hand these to the contract (`hostBody: { failed }`).
 */
export function isHostBodyError(error: unknown): boolean {
  if (error instanceof SyntaxError || error instanceof HttpError) return true;
  const { type, code, status, statusCode } = (error ?? {}) as { type?: unknown; code?: unknown; status?: unknown; statusCode?: unknown };
  if (typeof code === 'string' && code.startsWith('FST_ERR_CTP_')) return true;
  if (isZlibError(error)) return true; // a body a host's inflation could not decompress
  const clientStatus = [status, statusCode].some((s) => typeof s === 'number' && s >= 400 && s < 500);
  if (clientStatus && typeof type === 'string' && /^(entity|encoding|charset|request|stream)\./.test(type)) return true;
  // `inflation` (co-body, so koa-bodyparser) refuses a coding it does not know with a bare 415.
  return status === 415 && error instanceof Error && /content-encoding/i.test(error.message);
}

/**
 * The contract's answer to a body a host's parser refused: body-parser's and co-body's errors carry
 * `status` and `type`, Fastify's `statusCode` and a `FST_ERR_CTP_*` code. Too large is 413, an
 * unknown content coding 415, a body that never arrived whole 400; anything else is malformed JSON.
 */
export function hostBodyError(error: unknown, limit = BODY_LIMIT_BYTES): HttpError {
  if (error instanceof HttpError) return error; // the contract's own reader, run by the host
  const { status, statusCode, type, code } = (error ?? {}) as { status?: unknown; statusCode?: unknown; type?: unknown; code?: unknown };
  if (status === 413 || statusCode === 413 || type === 'entity.too.large' || code === 'FST_ERR_CTP_BODY_TOO_LARGE') return tooLarge(limit);
  if (type === 'encoding.unsupported') return new HttpError(415, UNSUPPORTED_ENCODING, 'unsupported_encoding');
  if (isZlibError(error) || isZlibError((error as { cause?: unknown } | null)?.cause)) return new HttpError(400, 'The request body could not be decompressed', 'undecodable_body');
  if (type === 'charset.unsupported') return notUtf8();
  if (type === 'request.aborted' || type === 'request.size.invalid' || code === 'ECONNRESET' || code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return new HttpError(400, 'The request body could not be read', 'unreadable_body');
  }
  return new HttpError(400, 'Malformed JSON body', 'malformed_json');
}

/** The body's bytes, decompressed, refusing more than `limit` of them (in or out) as early as it can. */
async function readBytes(request: HttpRequest, limit: number): Promise<Uint8Array> {
  const declared = Number(headerValue(request.headers, 'content-length'));
  if (declared > limit) throw tooLarge(limit);
  const coding = (headerValue(request.headers, 'content-encoding') ?? 'identity').trim().toLowerCase();
  const source = pull(request.body ?? [], limit);
  if (coding === 'identity' || coding === '') return collect(source, limit);
  const makeDecoder = DECODERS[coding];
  if (!makeDecoder) throw new HttpError(415, UNSUPPORTED_ENCODING, 'unsupported_encoding');
  const decoder = makeDecoder();
  const feeding = (async () => {
    for await (const chunk of source) {
      if (decoder.destroyed) return;
      if (!decoder.write(chunk)) await drained(decoder);
    }
    decoder.end();
  })().catch((error: unknown) => decoder.destroy(error as Error));
  try {
    return await collect(decoder, limit);
  } catch (error) {
    if (!(error instanceof HttpError) && isZlibError(error)) throw new HttpError(400, 'The request body could not be decompressed', 'undecodable_body');
    throw error;
  } finally {
    decoder.destroy();
    await feeding;
  }
}

/**
 * The chunks of `body`, at most `limit` bytes of them. It pulls by hand rather than with `for await`,
 * so stopping early does not destroy the request stream: the answer (a 413) still has a socket to go
 * out on. A failure of the stream itself (the client went away) is the client's: a 400.
 */
async function* pull(body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, limit: number): AsyncGenerator<Uint8Array> {
  const it = Symbol.asyncIterator in body ? body[Symbol.asyncIterator]() : body[Symbol.iterator]();
  let size = 0;
  for (;;) {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await it.next();
    } catch (error) {
      // The source's own refusal (a fetch host's body deadline, 408) stands; a broken stream is the client's.
      if (error instanceof HttpError) throw error;
      throw new HttpError(400, 'The request body could not be read', 'unreadable_body');
    }
    if (next.done) return;
    size += next.value.byteLength;
    if (size > limit) throw tooLarge(limit);
    yield next.value;
  }
}

/** Resolves when a writable wants more, or is gone (a destroyed stream never emits 'drain'). */
function drained(stream: NodeJS.WritableStream & { once(event: 'close', listener: () => void): unknown }): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.removeListener('drain', done);
      stream.removeListener('close', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('close', done);
  });
}

async function collect(chunks: AsyncIterable<Uint8Array>, limit: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge(limit);
    parts.push(chunk);
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
}

/** The 413 for a body over `limit` bytes. */
export const tooLarge = (limit: number) => new HttpError(413, `Request body too large (the limit is ${limit / 1024} KiB)`, 'body_too_large');

export const UNSUPPORTED_ENCODING = 'Unsupported content encoding';

/** zlib's and brotli's errors carry codes such as Z_DATA_ERROR or ERR__ERROR_FORMAT_PADDING_1. */
function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(Z_|ERR__ERROR_)/.test(code);
}
