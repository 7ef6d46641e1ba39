import { expect, it } from 'vitest';
import { captureMail, request, testHasher } from '@sl-accounts/service/http/testing';
import { createService } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
it('verifies the address with the link mailed at signup', async () => {
  const mailbox = captureMail();
  const { api, close } = await createService({ store: createMemoryStore(), hasher: testHasher, mailer: mailbox });
  const signup = await request<{ user: { email: string } }>(api, 'POST /api/signup', { json: { name: 'Ada', email: 'ada@example.com', password: 'correct horse' } });
  const token = mailbox.link(signup.json.user.email)?.searchParams.get('token');
  // Confirmed from the browser signed in to the account: a link counts only with one of its sessions.
  expect((await request(api, 'POST /api/email-verification/confirm', { json: { token }, cookie: signup.cookies })).status).toBe(200);
  expect((await request<{ user: { emailVerified: boolean } }>(api, 'GET /api/me', { cookie: signup.cookies })).json.user.emailVerified).toBe(true);
  await close();
});
