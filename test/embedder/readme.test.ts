import { expect, it } from 'vitest';
import { ManualClock, request, testHasher } from '@sl-accounts/service/http/testing';
import { createService } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
it('ends a session 7 days after signup', async () => {
  const clock = new ManualClock(), { api } = await createService({ store: createMemoryStore(), clock, hasher: testHasher });
  const ada = await request(api, 'POST /api/signup', { json: { name: 'Ada', email: 'ada@example.com', password: 'correct horse' } });
  clock.advance(7 * 24 * 60 * 60 * 1000);
  expect([ada.status, (await request(api, 'GET /api/me', { cookie: ada.cookies })).status]).toEqual([201, 401]);
});
