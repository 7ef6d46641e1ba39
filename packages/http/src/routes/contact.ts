/**
 * The contact form: `POST /api/contact`, no account needed.
 */
import { ContactRequest } from '@sl-accounts/service/core';
import { EXAMPLE_CONTACT, EXAMPLE_OK } from '../examples.ts';
import { okAnswer } from './responses.ts';
import type { ApiRoute } from './route.ts';

export const sendContactMessage: ApiRoute = {
  method: 'POST',
  path: '/api/contact',
  operationId: 'sendContactMessage',
  summary: 'Send a contact message',
  description: 'Stores a message for the operators; no account needed. The e-mail address is trimmed and lower-cased, the name trimmed.',
  tag: 'contact',
  changesState: true,
  auth: 'public',
  limited: 'contact',
  requestBody: ContactRequest,
  requestExample: EXAMPLE_CONTACT,
  responses: { '200': { description: 'Message received.', body: 'Ok', example: EXAMPLE_OK } },
  run: async (accounts, request) => {
    const { limits } = await accounts.contact(request.bodyReader(), request.meta());
    return okAnswer(200, {}, limits);
  },
};
