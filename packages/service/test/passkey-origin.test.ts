/**
 * Embedded passkeys (docs/embedding.md, docs/decisions/0048-startup-checks.md): without `publicUrl`
 * (or `linkBase`, or `accounts.passkeyOrigin`) the service has no relying party, and every passkey
 * ceremony answers 503 `passkeys_unavailable` naming `publicUrl`, where it answered options for
 * `localhost` without a port that no browser page could use.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request, testHasher } from '@sl-accounts/service/http/testing';
import { createService, type Service } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';

let service: Service | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

describe('createService: the passkeys relying party', () => {
  it('without publicUrl: passkey routes answer 503 passkeys_unavailable naming publicUrl (issue 39 row 11)', async () => {
    service = await createService({ store: createMemoryStore(), hasher: testHasher, mailer: { send: async () => {} } });
    const answer = await request(service.api, 'POST /api/passkeys/sign-in-options', { headers: { origin: 'http://localhost' } });
    expect(answer.status).toBe(503);
    expect(answer.json).toEqual({ ok: false, code: 'passkeys_unavailable', error: expect.stringContaining('publicUrl') });
  });

  it('with publicUrl: its host is the relying party, its port kept in the origin', async () => {
    service = await createService({ store: createMemoryStore(), hasher: testHasher, mailer: { send: async () => {} }, publicUrl: 'http://localhost:4300' });
    const answer = await request(service.api, 'POST /api/passkeys/sign-in-options', { headers: { host: 'localhost:4300', origin: 'http://localhost:4300' } });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ ok: true, options: { rpId: 'localhost' } });
  });
});
