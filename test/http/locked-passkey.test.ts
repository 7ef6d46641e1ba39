/**
 * An account the operator locked (issue 43) cannot sign in with a passkey either: every way in ends
 * in the one login flow, which refuses a locked account, so a passkey alone gets 403 `account_locked`
 * and no session; once unlocked, the same passkey signs in.
 */
import { describe, expect, it } from 'vitest';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { secretBox } from '@sl-accounts/service/core';
import { ManualClock } from '@sl-accounts/service/core/testing';
import { EXAMPLE_SIGNUP } from '@sl-accounts/service/http/examples';
import { testHasher } from '@sl-accounts/service/http/testing';
import { createService } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { softAuthenticator } from '../support/soft-authenticator.ts';

const ORIGIN = 'http://localhost';

describe('a locked account and its passkey', () => {
  it('is refused with 403 account_locked and no session; unlocked, the same passkey signs in', async () => {
    const service = await createService({
      store: createMemoryStore(),
      hasher: testHasher,
      clock: new ManualClock(),
      mailer: { send: async () => {} },
      linkBase: ORIGIN,
      publicUrl: ORIGIN,
      accounts: { secrets: secretBox(Buffer.alloc(32, 7)) },
    });
    let client = 0;
    const call = async (path: string, body?: unknown, cookie?: string) => {
      const response = await service.fetch(
        new Request(`${ORIGIN}${path}`, {
          method: 'POST',
          headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(cookie ? { cookie } : {}) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
        { clientAddress: `10.0.0.${++client}` },
      );
      const json = (await response.json()) as Record<string, unknown>;
      return { status: response.status, json, session: response.headers.getSetCookie().find((c) => c.startsWith('sl_session='))?.split(';')[0] };
    };
    const authenticator = softAuthenticator(ORIGIN);
    const signup = await call('/api/signup', EXAMPLE_SIGNUP);
    expect(signup.status).toBe(201);
    const userId = (signup.json.user as { id: number }).id;
    const options = await call('/api/passkeys/registration-options', { password: EXAMPLE_SIGNUP.password }, signup.session);
    const { passkey, response } = authenticator.register(options.json.options as PublicKeyCredentialCreationOptionsJSON);
    expect((await call('/api/passkeys', { response }, signup.session)).status).toBe(201);
    const signInWithPasskey = async () => {
      const asked = await call('/api/passkeys/sign-in-options');
      return call('/api/passkeys/sign-in', { response: authenticator.assert(passkey, asked.json.options as PublicKeyCredentialRequestOptionsJSON) });
    };

    await service.admin.lockAccount(userId, { reason: 'reported stolen' }, { operator: 'alice' });
    const refused = await signInWithPasskey();
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('account_locked');
    expect(refused.session).toBeUndefined();

    await service.admin.unlockAccount(userId, {}, { operator: 'alice' });
    const signedIn = await signInWithPasskey();
    expect(signedIn.status).toBe(200);
    expect(signedIn.session).toMatch(/^sl_session=.+/);
    await service.close();
  });
});
