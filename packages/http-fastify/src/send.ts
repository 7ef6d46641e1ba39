import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyReply } from 'fastify';
import { isStreamBody, type HttpAnswer } from '@sl-accounts/service/http';

/**
 * Sends a contract answer through Fastify's reply, so the app's hooks (`onSend`, `onResponse`, its
 * logging) see it: the contract's status, headers and serialised body as they are (text handed
 * over as bytes, so Fastify adds no charset to its content type). A streamed body
 * (`/mcp`'s event streams) goes as a node stream, which Fastify pipes out and destroys when the
 * client goes away.
 */
export function send(reply: FastifyReply, answer: HttpAnswer): FastifyReply {
  const { body } = answer;
  reply.code(answer.status).headers(answer.headers);
  if (isStreamBody(body)) return reply.send(Readable.fromWeb(body as NodeReadableStream<Uint8Array>));
  // Bytes, not text: Fastify would add a charset to the content type of a string.
  if (typeof body === 'string') return reply.send(Buffer.from(body));
  return reply.send(body === null || Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
}
