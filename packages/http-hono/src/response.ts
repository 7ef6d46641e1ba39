import { isStreamBody, type HttpAnswer } from '@sl-accounts/service/http';

/** A contract answer as a web `Response`: its status, headers and body as they are (a stream stays one; Hono drops the body of a HEAD answer). */
export function toResponse(answer: HttpAnswer): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) for (const v of typeof value === 'string' ? [value] : value) headers.append(name, v);
  const { body } = answer;
  return new Response(body === null || typeof body === 'string' || isStreamBody(body) ? body : new Uint8Array(body), { status: answer.status, headers });
}
