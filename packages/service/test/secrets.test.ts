/**
 * The key of second factors' secrets at the start of `createService` (docs/decisions/0048-startup-checks.md):
 * without `accounts.secrets` the development key with a warning outside production, none in
 * production; a value that is no SecretBox refused naming the option; a key that does not open the
 * stored secrets refused with one line naming SECRETS_KEY; a secret that still does not open later
 * answers 503, never 500.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { TOTP } from 'otpauth';
import { secretBox, secretContext, type SecretBox } from '@sl-accounts/service/core';
import { request, testHasher } from '@sl-accounts/service/http/testing';
import { createService, type Service } from '@sl-accounts/service';
import { createMemoryStore, type MemoryStore } from '@sl-accounts/store-memory';

const KEY_A = secretBox(randomBytes(32));
const KEY_B = secretBox(randomBytes(32));
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const PASSWORD = 'correct horse battery';

/** An account `email` (password PASSWORD) with TOTP on, its SECRET sealed under `box`, stored at `createdAt`. */
async function withFactor(store: MemoryStore, email: string, box: SecretBox, createdAt: Date): Promise<number> {
  const user = (await store.users.insert({ name: 'Ada', email, passwordHash: await testHasher.hash(PASSWORD), createdAt }))!;
  const sealed = box.seal(SECRET, secretContext(user.id));
  await store.totp.putPending(user.id, sealed, createdAt);
  await store.totp.enable(user.id, sealed, 1);
  return user.id;
}

function warnings() {
  const lines: string[] = [];
  const logger = { debug() {}, info() {}, error() {}, warn: (_: object, msg: string) => void lines.push(msg) };
  return { lines, logger };
}

let service: Service | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

describe('createService: accounts.secrets', () => {
  it('refuses a key that does not open the stored TOTP secrets, in one line naming SECRETS_KEY (another key, or none: the development key)', async () => {
    const store = createMemoryStore();
    await withFactor(store, 'ada@example.org', KEY_A, new Date());
    const refusal = /^SECRETS_KEY does not open the stored TOTP secrets: start with the SECRETS_KEY they were sealed under \(createService: accounts.secrets/;
    await expect(createService({ store, hasher: testHasher, accounts: { secrets: KEY_B } })).rejects.toThrow(refusal);
    const { logger } = warnings();
    const development = createService({ store, hasher: testHasher, logger });
    await expect(development).rejects.toThrow(/^SECRETS_KEY is not set, and the development key does not open the stored TOTP secrets/);
    await development.catch((error: Error) => expect(error.message).not.toContain('\n'));
    // The right key starts.
    service = await createService({ store, hasher: testHasher, accounts: { secrets: KEY_A } });
  });

  it('without it outside production: the development key, with a warning naming accounts.secrets, and TOTP enrolment works', async () => {
    const { lines, logger } = warnings();
    service = await createService({ store: createMemoryStore(), hasher: testHasher, logger });
    expect(lines.filter((line) => line.includes('accounts.secrets'))).toEqual([expect.stringMatching(/^accounts.secrets is not set: .*development key/)]);
    const signup = await request(service.api, 'POST /api/signup', { json: { name: 'Ada', email: 'ada@example.org', password: PASSWORD } });
    const enrol = await request(service.api, 'POST /api/two-factor/totp', { json: { password: PASSWORD }, cookie: signup.cookies });
    expect(enrol.status).toBe(200);
    const { secret } = enrol.json as { secret: string };
    const code = new TOTP({ secret }).generate();
    const confirm = await request(service.api, 'POST /api/two-factor/totp/confirm', { json: { code }, cookie: signup.cookies });
    expect(confirm.status).toBe(200);
  });

  it('without it in production: no enrolment (503) with a warning, and no start while an account has TOTP on', async () => {
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      const { lines, logger } = warnings();
      service = await createService({ store: createMemoryStore(), hasher: testHasher, logger });
      expect(lines).toContainEqual(expect.stringMatching(/^accounts.secrets is not set and NODE_ENV is production: TOTP enrolment answers 503/));
      const signup = await request(service.api, 'POST /api/signup', { json: { name: 'Ada', email: 'ada@example.org', password: PASSWORD } });
      const enrol = await request(service.api, 'POST /api/two-factor/totp', { json: { password: PASSWORD }, cookie: signup.cookies });
      expect(enrol.status).toBe(503);
      expect(enrol.json).toMatchObject({ ok: false, code: 'two_factor_unavailable' });

      const store = createMemoryStore();
      await withFactor(store, 'bob@example.org', KEY_A, new Date());
      await expect(createService({ store, hasher: testHasher, logger })).rejects.toThrow(/^SECRETS_KEY is not set \(createService: accounts.secrets\), and 1 account\(s\) have TOTP on/);
    } finally {
      process.env.NODE_ENV = previous;
    }
  });

  it('refuses a value that is no SecretBox at the start, naming accounts.secrets', async () => {
    for (const bad of ['abc', 42, {}, { seal: () => '' }]) {
      await expect(createService({ store: createMemoryStore(), accounts: { secrets: bad as unknown as SecretBox } }), JSON.stringify(bad)).rejects.toThrow(/^createService: accounts.secrets: must be a SecretBox/);
    }
  });

  it('a stored secret that does not open later (sealed under another key) answers 503 two_factor_unavailable, never 500', async () => {
    const store = createMemoryStore();
    // The start checks the newest factor only: Bob's, under the right key.
    await withFactor(store, 'ada@example.org', KEY_B, new Date(Date.now() - 60_000));
    await withFactor(store, 'bob@example.org', KEY_A, new Date());
    service = await createService({ store, hasher: testHasher, accounts: { secrets: KEY_A } });
    const login = await request(service.api, 'POST /api/login', { json: { email: 'ada@example.org', password: PASSWORD } });
    expect(login.status).toBe(202);
    const code = new TOTP({ secret: SECRET }).generate();
    const second = await request(service.api, 'POST /api/login/second-factor', { json: { code }, cookie: login.cookies });
    expect(second.status).toBe(503);
    expect(second.json).toMatchObject({ ok: false, code: 'two_factor_unavailable' });
  });
});
