/**
 * Routes the table does not have, shaped as ones a later change may add (a second address for
 * recovery, an invitation link with a token in its path, a `PATCH` of preferences under a tag of its
 * own with optional fields that are not strings, a body schema without an id): test/discovery/route-table-derivation.test.ts adds them to the route table
 * in a process of their own and checks that every document then describes them, with no other edit.
 */
import { z } from 'zod';
import type { ApiRoute } from '@sl-accounts/service/http';

const ok = { description: 'Done.', body: 'Ok', example: { ok: true } } as const;
const notRun = async (): Promise<never> => {
  throw new Error('the documents never run an operation');
};

export const EXTRA_ROUTES = [
  {
    method: 'POST',
    path: '/api/recovery-email',
    operationId: 'setRecoveryEmail',
    summary: 'Set a recovery address',
    description: 'Mails a link to the recovery address; it is used once the link is followed.',
    tag: 'accounts',
    changesState: true,
    auth: 'session',
    requestBody: z.object({ newEmail: z.email().max(200), password: z.string().min(1).max(200) }).meta({ id: 'RecoveryEmailRequest' }),
    requestExample: { newEmail: 'ada@example.org', password: "Ada's own passphrase" },
    responses: { '202': { ...ok, description: 'Accepted: a link is on its way to the recovery address.' } },
    run: notRun,
  },
  {
    method: 'POST',
    path: '/api/invitations/{token}',
    operationId: 'acceptInvitation',
    summary: 'Accept an invitation',
    description: 'Joins the account of the link’s invitation.',
    tag: 'accounts',
    changesState: true,
    auth: 'public',
    pathParameters: { token: { description: 'The token of the link in the mail.', example: 'q8Vh2mZ0c4W1xYtN5bR7sK3eJ9uA6dL' } },
    responses: { '200': ok },
    run: notRun,
  },
  {
    method: 'PATCH',
    path: '/api/me/preferences',
    operationId: 'updatePreferences',
    summary: 'Change the preferences',
    description: 'Sets the preferences of the signed-in user.',
    tag: 'profile',
    changesState: true,
    auth: 'session',
    requestBody: z.object({ name: z.string().min(2).max(120), newsletter: z.boolean().optional(), locale: z.enum(['en', 'fr']).optional(), age: z.int().min(13).optional() }),
    requestExample: { name: 'Augusta Ada King', newsletter: false },
    responses: { '200': ok },
    run: notRun,
  },
] as unknown as readonly ApiRoute[];
