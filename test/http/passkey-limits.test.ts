/**
 * Every passkey ceremony is limited (issue 39, row 6): the options a signed-in session asks for
 * (registration, step-up) per session, and the sign-in options per address and from all addresses
 * together; each 429 says which policy and when to come back. The options need no authenticator:
 * asking is what stores a challenge. How many challenges the store keeps per account is the store
 * contract's (every store); the limits are the core's, on one store here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { URI, type TOTP } from 'otpauth';
import { ManualClock } from '@sl-accounts/service/core/testing';
import { PASSKEY_OPTIONS_SESSION_LIMIT, PASSKEY_SIGN_IN_TOTAL_LIMIT } from '@sl-accounts/service/core';
import type { RunningServer } from '@sl-accounts/server';
import { request, sessionFrom, type ApiResponse } from '../support/client.ts';
import { checkAgainstOpenApi } from '../support/openapi-contract.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };

describe('passkey ceremonies are limited', () => {
  let server: RunningServer | undefined;
  let clock: ManualClock;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  let ip = 0;
  const call = (path: string, options: Parameters<typeof request>[2] = {}) => request(server!.url, path, { ip: `198.19.${++ip >> 8}.${ip & 255}`, ...options });
  async function start() {
    clock = new ManualClock(new Date());
    server = await startTestServer({ host: HOST_KINDS[0], store: 'memory', clock, env: { TRUST_PROXY: '1', HOST: 'localhost' } });
  }
  /** Throws unless the OpenAPI document describes the answer: status, headers (their patterns), body. */
  const documented = (path: string, res: ApiResponse) => checkAgainstOpenApi('POST', new URL(path, server!.url), { ...res, text: JSON.stringify(res.body) });
  /** The 429's headers: one policy per header where one counted, and when to come back. */
  function expectRefusedBy(res: ApiResponse, policy: string, rule: { limit: number; windowMs: number }) {
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ ok: false, code: 'rate_limited' });
    expect(res.headers.get('ratelimit-policy')).toContain(`"${policy}";q=${rule.limit};w=${rule.windowMs / 1000}`);
    expect(res.headers.get('ratelimit')).toMatch(new RegExp(`"${policy}";r=0;t=\\d+`));
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(rule.windowMs / 1000);
  }

  it(`one session gets ${PASSKEY_OPTIONS_SESSION_LIMIT.limit} registration options (and step-up options) in 5 minutes, then 429; another session has its own`, async () => {
    await start();
    const signup = await call('/api/signup', { json: ADA });
    const session = sessionFrom(signup)!;
    const statuses: number[] = [];
    for (let i = 0; i < PASSKEY_OPTIONS_SESSION_LIMIT.limit; i++) {
      const res = await call('/api/passkeys/registration-options', { json: { password: ADA.password }, session });
      statuses.push(res.status);
      // The session's options and, since the password is checked here (issue 39), the session's
      // password checks: each policy once, as the OpenAPI pattern of this route allows.
      if (i === 0) {
        expect(res.headers.get('ratelimit-policy')).toBe(`"passkey-options-session";q=${PASSKEY_OPTIONS_SESSION_LIMIT.limit};w=300, "session-password";q=20;w=900`);
        documented('/api/passkeys/registration-options', res);
      }
    }
    expect(statuses).toEqual(Array(PASSKEY_OPTIONS_SESSION_LIMIT.limit).fill(200));
    const refused = await call('/api/passkeys/registration-options', { json: { password: ADA.password }, session });
    expectRefusedBy(refused, 'passkey-options-session', PASSKEY_OPTIONS_SESSION_LIMIT);
    documented('/api/passkeys/registration-options', refused);
    // Step-up options share the session's count (each stores a challenge too).
    expectRefusedBy(await call('/api/passkeys/step-up-options', { json: {}, session }), 'passkey-options-session', PASSKEY_OPTIONS_SESSION_LIMIT);
    const other = sessionFrom(await call('/api/login', { json: { email: ADA.email, password: ADA.password } }))!;
    expect((await call('/api/passkeys/registration-options', { json: { password: ADA.password }, session: other })).status).toBe(200);
    // The window ends with a challenge's life.
    clock.advance(PASSKEY_OPTIONS_SESSION_LIMIT.windowMs);
    expect((await call('/api/passkeys/registration-options', { json: { password: ADA.password }, session })).status).toBe(200);
  });

  it(`sign-in options from rotating addresses meet a total: ${PASSKEY_SIGN_IN_TOTAL_LIMIT.limit} in 5 minutes from everyone, then 429`, { timeout: 120_000 }, async () => {
    await start();
    let answered = 0;
    // In rounds of 50 at once, each from its own address (the per-address limit stays out of the way).
    for (let sent = 0; sent < PASSKEY_SIGN_IN_TOTAL_LIMIT.limit; sent += 50) {
      const round = await Promise.all(Array.from({ length: 50 }, () => call('/api/passkeys/sign-in-options', { json: {} })));
      answered += round.filter((res) => res.status === 200).length;
    }
    expect(answered).toBe(PASSKEY_SIGN_IN_TOTAL_LIMIT.limit);
    const refused = await call('/api/passkeys/sign-in-options', { json: {} });
    expectRefusedBy(refused, 'passkey-sign-in-total', PASSKEY_SIGN_IN_TOTAL_LIMIT);
    // The per-address policy first, then the total: the two the route's OpenAPI pattern names.
    expect(refused.headers.get('ratelimit-policy')).toMatch(/^"passkeySignIn";q=40;w=900, "passkey-sign-in-total";q=3000;w=300$/);
    documented('/api/passkeys/sign-in-options', refused);
    clock.advance(PASSKEY_SIGN_IN_TOTAL_LIMIT.windowMs);
    expect((await call('/api/passkeys/sign-in-options', { json: {} })).status).toBe(200);
  });

  it('the passkey login counts against the account’s wrong answers, and its RateLimit headers agree with its OpenAPI schema', async () => {
    await start();
    const session = sessionFrom(await call('/api/signup', { json: ADA }))!;
    const started = await call('/api/two-factor/totp', { json: { password: ADA.password }, session });
    const app = URI.parse((started.body as { otpauthUri: string }).otpauthUri) as TOTP;
    expect((await call('/api/two-factor/totp/confirm', { json: { code: app.generate({ timestamp: clock.now().getTime() }) }, session })).status).toBe(200);
    const challenge = (await call('/api/login', { json: { email: ADA.email, password: ADA.password } })).setCookies.map((c) => /^sl_login=([^;]+)/.exec(c)?.[1]).find(Boolean);
    // An answer of no passkey of the account (a well-formed one an attacker could send): refused, and counted.
    const credential = { id: 'AQID', rawId: 'AQID', type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: 'e30', authenticatorData: 'AQID', signature: 'AQID' } };
    const refused = await call('/api/login/passkey', { json: { response: credential }, headers: { cookie: `sl_login=${challenge}` } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('ratelimit-policy')).toMatch(/^"passkeySignIn";q=40;w=900, "second-factor-account";q=10;w=86400$/);
    documented('/api/login/passkey', refused);
  });
});
