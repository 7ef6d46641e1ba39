import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Context } from 'koa';
import { isStreamBody, type HttpAnswer } from '@sl-accounts/service/http';

/**
 * Writes a contract answer the Koa way (`ctx.status`, `ctx.body`), so the app's own middleware sees
 * it; the headers go straight onto node's response, since the contract has checked them all. A
 * streamed body (`/mcp`'s event streams) becomes a node stream, which Koa pipes out and destroys
 * when the client goes away (that cancels the stream, which tells the endpoint).
 */
export function send(ctx: Context, answer: HttpAnswer): void {
  ctx.status = answer.status;
  const { headers, body } = answer;
  for (const name in headers) ctx.res.setHeader(name, headers[name]!);
  if (isStreamBody(body)) {
    if (ctx.method === 'HEAD') {
      void body.cancel();
      ctx.body = null;
      return;
    }
    ctx.body = Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
    return;
  }
  // Koa sends strings and Buffers as they are (and would serialise any other object as JSON).
  ctx.body = body === null || typeof body === 'string' || Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}
