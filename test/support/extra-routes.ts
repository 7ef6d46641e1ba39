/**
 * Routes the table does not have, shaped as the ones another change will add (a change of address,
 * a verification link with a token in its path, `PATCH /api/me` under a tag of its own with
 * optional fields that are not strings, a body schema without an id): test/discovery/route-table-derivation.test.ts adds them to the route table
 * in a process of their own and checks that every document then describes them, with no other edit.
 */
import { z } from 'zod';
import type { ApiRoute } from '@sl-accounts/http';

const ok = { description: 'Done.', body: 'Ok', example: { ok: true } } as const;
const notRun = async (): Promise<never> => {
  throw new Error('the documents never run an operation');
};

export const EXTRA_ROUTES = [
  {
    method: 'POST',
    path: '/api/email-change',
    operationId: 'requestEmailChange',
    summary: 'Change the e-mail address',
    description: 'Mails a link to the new address; `GET /api/me` shows the new one once the link is followed.',
    tag: 'accounts',
    changesState: true,
    auth: 'session',
    requestBody: z.object({ newEmail: z.email().max(200), password: z.string().min(1).max(200) }).meta({ id: 'EmailChangeRequest' }),
    requestExample: { newEmail: 'ada@example.org', password: "Ada's own passphrase" },
    responses: { '202': { ...ok, description: 'Accepted: a link is on its way to the new address.' } },
    run: notRun,
  },
  {
    method: 'POST',
    path: '/api/email-verification/{token}',
    operationId: 'verifyEmail',
    summary: 'Verify the e-mail address',
    description: 'Marks the address of the link’s account verified.',
    tag: 'accounts',
    changesState: true,
    auth: 'public',
    pathParameters: { token: { description: 'The token of the link in the mail.', example: 'q8Vh2mZ0c4W1xYtN5bR7sK3eJ9uA6dL' } },
    responses: { '200': ok },
    run: notRun,
  },
  {
    method: 'PATCH',
    path: '/api/me',
    operationId: 'updateProfile',
    summary: 'Change the name',
    description: 'Sets the name `GET /api/me` answers.',
    tag: 'profile',
    changesState: true,
    auth: 'session',
    requestBody: z.object({ name: z.string().min(2).max(120), newsletter: z.boolean().optional(), locale: z.enum(['en', 'fr']).optional(), age: z.int().min(13).optional() }),
    requestExample: { name: 'Augusta Ada King', newsletter: false },
    responses: { '200': ok },
    run: notRun,
  },
] as unknown as readonly ApiRoute[];
