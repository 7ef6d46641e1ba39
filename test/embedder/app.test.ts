import { expect, it } from 'vitest';
import { ManualClock, request, testHasher } from '@sl-accounts/service/http/testing';
import { createService } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
it('signs up, logs in, and the session ends 7 days later', async () => {
  const clock = new ManualClock();
  const { api, close } = await createService({ store: createMemoryStore(), clock, hasher: testHasher });
  const ada = { name: 'Ada', email: 'ada@example.com', password: 'correct horse' };
  expect((await request(api, 'POST /api/signup', { json: ada })).status).toBe(201);
  const login = await request(api, 'POST /api/login', { json: ada });
  expect((await request(api, 'GET /api/me', { cookie: login.cookies })).json).toMatchObject({ user: { email: ada.email } });
  clock.advance(7 * 24 * 60 * 60 * 1000);
  expect((await request(api, 'GET /api/me', { cookie: login.cookies })).status).toBe(401);
  await close();
});
