/**
 * SECRETS_KEY (docs/decisions/0044-step-up-and-secrets-at-rest.md): parsed and checked by the
 * configuration; without it, production refuses to start while an account has TOTP on, and
 * development uses the development key with a warning.
 */
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '@sl-accounts/server';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { secretsOf } from '../src/serve.ts';

const KEY = randomBytes(32).toString('base64');

function recordingLogger() {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (_: object, msg: string) => void warnings.push(msg) } };
}

async function storeWithTotpOn() {
  const store = createMemoryStore();
  const user = (await store.users.insert({ name: 'Ada', email: 'ada@example.com', passwordHash: '$x$y', createdAt: new Date() }))!;
  await store.totp.putPending(user.id, 'v1.aXY.c2VhbGVk', new Date());
  await store.totp.enable(user.id, 'v1.aXY.c2VhbGVk', 1);
  return store;
}

describe('SECRETS_KEY', () => {
  it('takes 32 bytes of base64 and refuses anything else', () => {
    expect(loadConfig({ SECRETS_KEY: KEY }).secretsKey).toBe(KEY);
    for (const bad of ['short', randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), `${KEY}!`]) {
      expect(() => loadConfig({ SECRETS_KEY: bad }), bad).toThrow(/SECRETS_KEY/);
    }
  });

  it('seals with the configured key: what it seals opens under it only', async () => {
    const { logger, warnings } = recordingLogger();
    const box = (await secretsOf(loadConfig({ SECRETS_KEY: KEY, NODE_ENV: 'production' }), createMemoryStore(), logger))!;
    const sealed = box.seal('JBSWY3DPEHPK3PXP', 'totp:1');
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.open(sealed, 'totp:1')).toBe('JBSWY3DPEHPK3PXP');
    expect(() => box.open(sealed, 'totp:2')).toThrow();
    const other = (await secretsOf(loadConfig({ SECRETS_KEY: randomBytes(32).toString('base64') }), createMemoryStore(), logger))!;
    expect(() => other.open(sealed, 'totp:1')).toThrow();
    expect(box.development).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('missing in production: refuses to start while an account has TOTP on, and offers no enrolment otherwise', async () => {
    const { logger } = recordingLogger();
    await expect(secretsOf(loadConfig({ NODE_ENV: 'production' }), await storeWithTotpOn(), logger)).rejects.toThrow(/SECRETS_KEY is not set, and 1 account\(s\) have TOTP on/);
    expect(await secretsOf(loadConfig({ NODE_ENV: 'production' }), createMemoryStore(), logger)).toBeNull();
  });

  it('missing outside production: the development key, with a warning', async () => {
    const { logger, warnings } = recordingLogger();
    const box = (await secretsOf(loadConfig({}), await storeWithTotpOn(), logger))!;
    expect(box.development).toBe(true);
    expect(box.open(box.seal('s', 'c'), 'c')).toBe('s');
    expect(warnings).toEqual([expect.stringMatching(/^SECRETS_KEY is not set: .*development key/)]);
  });
});
