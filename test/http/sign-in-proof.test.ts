/**
 * Adding or removing a way to sign in needs proof in the request itself (issue 39, rows 1, 3 and 9):
 * the password, and with a factor on a current code or a recovery code; a session alone, or a
 * step-up window, is not enough. Without an authenticator: the proof goes with the registration's
 * options, so these cases stop before a device would be asked (the Chromium suite,
 * test/discovery/passkeys-chromium.test.ts, carries on to the passkey itself). And a login challenge
 * voided by a credential change is refused before its code is looked at.
 */
import { afterEach, expect, it } from 'vitest';
import { URI, type TOTP } from 'otpauth';
import { ManualClock } from '@sl-accounts/service/core/testing';
import type { RunningServer } from '@sl-accounts/server';
import { request, sessionFrom, type ApiResponse, type RequestOptions } from '../support/client.ts';
import { HOST_KINDS, MATRIX, describeEachServer, startTestServer, type ServerRow } from '../support/server.ts';

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'correct horse battery' };
const STEP_MS = 30_000;

const cookieOf = (res: ApiResponse, name: string) => res.setCookies.map((c) => new RegExp(`^${name}=([^;]+)`).exec(c)?.[1]).find(Boolean);
const codeIn = (res: ApiResponse) => [res.status, (res.body as { code?: string }).code];

// The store decides only the race (who gets the one recovery code): the other cases run on the first row.
describeEachServer('proof in the request to add or remove a way to sign in', MATRIX.filter((row) => row.host === HOST_KINDS[0]), ({ host, store }: ServerRow) => {
  let server: RunningServer | undefined;
  let clock: ManualClock;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  let ip = 0;
  const call = (path: string, options: RequestOptions = {}) => request(server!.url, path, { ip: `198.18.${++ip >> 8}.${ip & 255}`, ...options });
  async function start() {
    clock = new ManualClock(new Date());
    server = await startTestServer({ host, store, clock, env: { TRUST_PROXY: '1' } });
  }
  const codeOf = (app: TOTP) => app.generate({ timestamp: clock.now().getTime() });
  const login = (who = ADA) => call('/api/login', { json: { email: who.email, password: who.password } });
  const options = (session: string, json?: unknown) => call('/api/passkeys/registration-options', { method: 'POST', session, ...(json === undefined ? {} : { json }) });

  /** Signs Ada up and turns TOTP on: the app, the recovery codes, the session (whose confirm was a step-up). */
  async function enrol() {
    const session = sessionFrom(await call('/api/signup', { json: ADA }))!;
    const started = await call('/api/two-factor/totp', { json: { password: ADA.password }, session });
    const app = URI.parse((started.body as { otpauthUri: string }).otpauthUri) as TOTP;
    const confirmed = await call('/api/two-factor/totp/confirm', { json: { code: codeOf(app) }, session });
    expect(confirmed.status).toBe(200);
    clock.advance(STEP_MS);
    return { app, session, recoveryCodes: (confirmed.body as { recoveryCodes: string[] }).recoveryCodes };
  }

  if (store === 'memory') {
    it('row 1: a stolen session of an account without a factor gets no registration options without the password', async () => {
      await start();
      const session = sessionFrom(await call('/api/signup', { json: ADA }))!;
      expect(codeIn(await options(session))).toEqual([400, 'json_required']);
      const bare = await options(session, {});
      expect(codeIn(bare)).toEqual([400, 'validation']);
      expect(bare.body).toEqual({ ok: false, error: expect.any(String), code: 'validation', issues: [expect.objectContaining({ path: 'password' })] });
      expect(codeIn(await options(session, { password: 'a guess at it' }))).toEqual([403, 'wrong_password']);
      const owner = await options(session, { password: ADA.password });
      expect(owner.status).toBe(200);
      // 32 random bytes and the proof's credential generation (8 bytes): 40 bytes, base64url.
      expect((owner.body as { options: { challenge: string } }).options.challenge).toMatch(/^[\w-]{54}$/);
    });

    it('row 3: with TOTP on, a session inside its step-up window gets no registration options, nor turns TOTP off, without the password and a current code', async () => {
      await start();
      const { app, session, recoveryCodes } = await enrol();
      // The confirm just verified a factor for this session: the window is open, and is not enough.
      expect(codeIn(await options(session, { password: ADA.password }))).toEqual([403, 'second_factor_required']);
      expect(codeIn(await options(session, { password: 'a guess at it', code: codeOf(app) }))).toEqual([403, 'wrong_password']);
      expect(codeIn(await options(session, { password: ADA.password, code: codeOf(app) === '000000' ? '000001' : '000000' }))).toEqual([403, 'wrong_code']);
      expect((await options(session, { password: ADA.password, code: codeOf(app) })).status).toBe(200);
      expect((await options(session, { password: ADA.password, recoveryCode: recoveryCodes[0] })).status).toBe(200);
      // A recovery code proves once.
      expect(codeIn(await options(session, { password: ADA.password, recoveryCode: recoveryCodes[0] }))).toEqual([403, 'wrong_code']);
      // Turning TOTP off: the same rule.
      expect(codeIn(await call('/api/two-factor/totp', { method: 'DELETE', json: { password: ADA.password }, session }))).toEqual([403, 'second_factor_required']);
      clock.advance(STEP_MS);
      expect((await call('/api/two-factor/totp', { method: 'DELETE', json: { password: ADA.password, code: codeOf(app) }, session })).status).toBe(200);
    });

    it('row 9: a challenge voided by a password change answers login_challenge_invalid before its code is checked: the right code keeps its step', async () => {
      await start();
      const { app, session } = await enrol();
      const stale = cookieOf(await login(), 'sl_login');
      expect(stale).toBeDefined();
      const newPassword = 'a new passphrase here';
      expect((await call('/api/password', { json: { currentPassword: ADA.password, newPassword, code: codeOf(app) }, session })).status).toBe(200);
      clock.advance(STEP_MS);
      const code = codeOf(app);
      expect(codeIn(await call('/api/login/second-factor', { json: { code }, headers: { cookie: `sl_login=${stale}` } }))).toEqual([401, 'login_challenge_invalid']);
      // The voided challenge spent nothing: the same code finishes a login with the new password.
      const fresh = cookieOf(await login({ ...ADA, password: newPassword }), 'sl_login');
      expect((await call('/api/login/second-factor', { json: { code }, headers: { cookie: `sl_login=${fresh}` } })).status).toBe(200);
    });
  }

  it('two registrations racing with one recovery code: one gets options, the other is refused', async () => {
    await start();
    const { session, recoveryCodes } = await enrol();
    const raced = await Promise.all([0, 1, 2].map(() => options(session, { password: ADA.password, recoveryCode: recoveryCodes[1] })));
    expect(raced.map(codeIn).sort()).toEqual([[200, undefined], [403, 'wrong_code'], [403, 'wrong_code']]);
  });
});
