import type { HttpAnswer } from '@sl-accounts/service/http';

/** A document answer: status 200 with the type and any further headers. */
export function documentAnswer(type: string, body: string | Uint8Array, headers: Record<string, string> = {}): HttpAnswer {
  return { status: 200, headers: { 'content-type': type, ...headers }, body };
}
