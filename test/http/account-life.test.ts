/**
 * The account's life over HTTP (issue 20): sessions listed and ended, the password changed, the
 * account deleted, the password reset's answers, on every store. Every answer is also checked
 * against the OpenAPI document by the client.
 */
import { afterEach, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { request, sessionFrom, type ApiResponse } from '../support/client.ts';
import { capturingLogger } from '../support/logger.ts';
import { nextConfirmToken, nextResetToken } from '../support/reset-mail.ts';
import { HOST_KINDS, MATRIX, describeEachServer, startTestServer } from '../support/server.ts';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };
const GRACE = { name: 'Grace', email: 'grace@example.com', password: 'cobol forever 1959' };
const NEW_PASSWORD = 'a new and longer passphrase';

interface Listed {
  readonly ok: true;
  readonly sessions: { id: string; createdAt: string; expiresAt: string; current: boolean }[];
}

describeEachServer('the account’s life', MATRIX.filter((row) => row.host === HOST_KINDS[0] || row.store === 'memory'), ({ host, store }) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  let ip = 0;
  /** Each request from a new address unless told otherwise, so the per-IP limits stay out of the way. */
  const call = (path: string, options: Parameters<typeof request>[2] = {}) => request(server!.url, path, { ip: `198.18.${++ip >> 8}.${ip & 255}`, ...options });
  const start = (env: Record<string, string> = {}) => startTestServer({ host, store, env: { TRUST_PROXY: '1', ...env } });
  /** The log lines of the server `startWithMail` started: its mails. */
  let mailLines: readonly string[] = [];
  /** A server whose mails (no SMTP_URL) go to `lines`; `resetToken()` asks for a reset and answers the token mailed. */
  async function startWithMail() {
    const { logger, lines } = capturingLogger('info');
    mailLines = lines;
    server = await startTestServer({ host, store, logger, env: { TRUST_PROXY: '1', MAIL_POLL_MS: '20', RESET_REQUESTS_PER_ADDRESS: '10' } });
    let seen = 0;
    return async (who = ADA) => {
      expect((await call('/api/password-reset', { json: { email: who.email } })).status).toBe(202);
      return nextResetToken(lines, who.email, seen++);
    };
  }
  const confirm = (token: string, newPassword: string) => call('/api/password-reset/confirm', { json: { token, newPassword } });
  const deviceFrom = (res: ApiResponse) => res.setCookies.map((c) => /^sl_device=([^;]+)/.exec(c)?.[1]).find(Boolean);
  const signup = async (who = ADA) => sessionFrom(await call('/api/signup', { json: who }))!;
  const login = async (who = ADA, password = who.password) => call('/api/login', { json: { email: who.email, password } });
  const me = (session: string) => call('/api/me', { session });
  /** Confirms the verification link mailed at signup to `who` with `session`, one of the account's (a server of `startWithMail`). */
  const verifyAddress = async (session: string, who = ADA) => {
    const verified = await call('/api/email-verification/confirm', { json: { token: await nextConfirmToken(mailLines, who.email, 0) }, session });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ user: { email: who.email, emailVerified: true } });
  };

  it('lists the user’s sessions with opaque ids and ends one by id; another user’s id is 404', async () => {
    server = await start();
    const a = await signup();
    const b = sessionFrom(await login())!;
    const grace = await signup(GRACE);
    const res = await call('/api/sessions', { session: a });
    expect(res.status).toBe(200);
    const { sessions } = res.body as Listed;
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    for (const s of sessions) {
      expect(s.id).not.toContain(a.slice(0, 10));
      expect(s.id).not.toContain(b.slice(0, 10));
      expect(new Date(s.expiresAt).getTime() - new Date(s.createdAt).getTime()).toBe(7 * 24 * 3600_000);
    }
    const other = sessions.find((s) => !s.current)!;
    // Grace cannot end Ada's session, nor see it.
    expect((await call(`/api/sessions/${other.id}`, { method: 'DELETE', session: grace })).status).toBe(404);
    expect(((await call('/api/sessions', { session: grace })).body as Listed).sessions).toHaveLength(1);
    expect((await me(b)).status).toBe(200);
    const ended = await call(`/api/sessions/${other.id}`, { method: 'DELETE', session: a });
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ ok: true });
    expect(ended.setCookies).toEqual([]);
    expect((await me(b)).status).toBe(401);
    expect((await me(a)).status).toBe(200);
    expect((await call(`/api/sessions/${other.id}`, { method: 'DELETE', session: a })).status).toBe(404);
    expect((await call('/api/sessions/%E0%A4%A', { method: 'DELETE', session: a })).status).toBe(404);
    expect((await call('/api/sessions')).status).toBe(401);
    // Ending one's own session clears the cookie.
    const own = (((await call('/api/sessions', { session: a })).body as Listed).sessions)[0]!;
    const self = await call(`/api/sessions/${own.id}`, { method: 'DELETE', session: a });
    expect(self.status).toBe(200);
    expect(self.setCookies[0]).toMatch(/^sl_session=; Max-Age=0;/);
    expect((await me(a)).status).toBe(401);
  });

  it('a session id that no session can have (U+0000, bytes that are not UTF-8, an encoded surrogate, 4,000 characters) is 404, never 500, and ends nothing', async () => {
    server = await start();
    const a = await signup();
    const b = sessionFrom(await login())!;
    for (const id of ['%00', 'x%00', '%00%00', '%FF', '%C0%80', '%ED%A0%80', '%F4%90%80%80', 'x'.repeat(4_000), '%E2%80%AE', '%0D%0A']) {
      const res = await call(`/api/sessions/${id}`, { method: 'DELETE', session: a });
      expect(res.status, id.slice(0, 20)).toBe(404);
      expect(res.body).toEqual({ ok: false, error: expect.any(String), code: expect.any(String) });
    }
    expect((await me(a)).status).toBe(200);
    expect((await me(b)).status).toBe(200);
  });

  it('a password change checks the current password, keeps this session and ends every other one', async () => {
    server = await start();
    const a = await signup();
    const b = sessionFrom(await login())!;
    const grace = await signup(GRACE);
    const wrong = await call('/api/password', { json: { currentPassword: 'not it at all', newPassword: NEW_PASSWORD }, session: a });
    expect(wrong.status).toBe(403);
    expect((await me(b)).status).toBe(200);
    const short = await call('/api/password', { json: { currentPassword: ADA.password, newPassword: 'short' }, session: a });
    expect(short.status).toBe(400);
    expect((short.body as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['newPassword']);
    expect((await call('/api/password', { json: { currentPassword: ADA.password, newPassword: NEW_PASSWORD } })).status).toBe(401);
    const changed = await call('/api/password', { json: { currentPassword: ADA.password, newPassword: NEW_PASSWORD }, session: a });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ok: true });
    expect((await me(a)).status).toBe(200);
    expect((await me(b)).status).toBe(401);
    expect((await me(grace)).status).toBe(200);
    expect((await login(ADA)).status).toBe(401);
    expect((await login(ADA, NEW_PASSWORD)).status).toBe(200);
  });

  // Issue 25 changed this on purpose: a session's password checks used to count against the
  // account's login lock, which strangers feed; now each session has a limit of its own.
  it('wrong current or deletion passwords count against the session’s own limit, which logins do not share', async () => {
    server = await start({ LOGIN_FAILURES_PER_ACCOUNT: '3', LOGIN_FAILURE_WINDOW_SECONDS: '600' });
    const a = await signup();
    const b = sessionFrom(await login())!;
    const first = await call('/api/password', { json: { currentPassword: 'first wrong', newPassword: NEW_PASSWORD }, session: a });
    expect(first.status).toBe(403);
    expect(first.headers.get('ratelimit-policy')).toBe('"session-password";q=3;w=600');
    expect(first.headers.get('ratelimit')).toMatch(/^"session-password";r=2;t=\d+$/);
    expect((await call('/api/me', { method: 'DELETE', json: { password: 'second wrong' }, session: a })).status).toBe(403);
    expect((await call('/api/password', { json: { currentPassword: 'third wrong', newPassword: NEW_PASSWORD }, session: a })).status).toBe(403);
    // Over the limit: even the right password waits, on this session.
    const limited = await call('/api/password', { json: { currentPassword: ADA.password, newPassword: NEW_PASSWORD }, session: a });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call('/api/me', { method: 'DELETE', json: { password: ADA.password }, session: a })).status).toBe(429);
    expect((await me(a)).status).toBe(200);
    // The session's failures are its own: logins and the account's other session are not limited by them.
    expect((await login(ADA)).status).toBe(200);
    const changed = await call('/api/password', { json: { currentPassword: ADA.password, newPassword: NEW_PASSWORD }, session: b });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('ratelimit')).toMatch(/^"session-password";r=3;t=\d+$/);
  });

  it('strangers holding the account’s login lock do not keep the signed-in owner from changing the password or deleting the account', async () => {
    server = await start();
    const a = await signup();
    // 21 wrong logins from rotating addresses: the account's logins are locked for every new browser.
    const guesses: number[] = [];
    for (let i = 0; i < 21; i++) guesses.push((await login(ADA, `stranger guess ${i}`)).status);
    expect(guesses).toEqual([...Array(20).fill(401), 429]);
    expect((await login(ADA)).status).toBe(429);
    const changed = await call('/api/password', { json: { currentPassword: ADA.password, newPassword: NEW_PASSWORD }, session: a });
    expect(changed.status).toBe(200);
    expect((await login(ADA, NEW_PASSWORD)).status).toBe(429);
    const deleted = await call('/api/me', { method: 'DELETE', json: { password: NEW_PASSWORD }, session: a });
    expect(deleted.status).toBe(200);
    expect((await me(a)).status).toBe(401);
  });

  it('deletion checks the password, ends every session, clears the cookie and frees the address', async () => {
    server = await start();
    const a = await signup();
    const b = sessionFrom(await login())!;
    expect((await call('/api/me', { method: 'DELETE', json: { password: 'not the password' }, session: a })).status).toBe(403);
    expect((await call('/api/me', { method: 'DELETE', json: {}, session: a })).status).toBe(400);
    expect((await call('/api/me', { method: 'DELETE', json: { password: ADA.password } })).status).toBe(401);
    expect((await me(a)).status).toBe(200);
    const deleted = await call('/api/me', { method: 'DELETE', json: { password: ADA.password }, session: a });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ ok: true });
    expect(deleted.setCookies[0]).toMatch(/^sl_session=; Max-Age=0;/);
    expect((await me(a)).status).toBe(401);
    expect((await me(b)).status).toBe(401);
    expect((await login(ADA)).status).toBe(401);
    const again = await call('/api/signup', { json: { ...ADA, name: 'Ada again' } });
    expect(again.status).toBe(201);
    expect((await me(sessionFrom(again)!)).body).toMatchObject({ user: { name: 'Ada again' } });
  });

  it('refuses cross-site browser requests to every operation that changes the account, changing nothing', async () => {
    server = await start();
    const a = await signup();
    const b = sessionFrom(await login())!;
    const other = (((await call('/api/sessions', { session: a })).body as Listed).sessions).find((s) => !s.current)!;
    const crossSite = { 'sec-fetch-site': 'cross-site' };
    const foreignOrigin = { origin: 'https://evil.example' };
    for (const headers of [crossSite, foreignOrigin]) {
      expect((await call(`/api/sessions/${other.id}`, { method: 'DELETE', session: a, headers })).status).toBe(403);
      expect((await call('/api/password', { json: { currentPassword: ADA.password, newPassword: NEW_PASSWORD }, session: a, headers })).status).toBe(403);
      expect((await call('/api/me', { method: 'DELETE', json: { password: ADA.password }, session: a, headers })).status).toBe(403);
      expect((await call('/api/password-reset', { json: { email: ADA.email }, headers })).status).toBe(403);
      expect((await call('/api/password-reset/confirm', { json: { token: 'x', newPassword: NEW_PASSWORD }, headers })).status).toBe(403);
    }
    expect((await me(b)).status).toBe(200);
    expect((await login(ADA)).status).toBe(200);
    // The same requests from the service's own pages go through.
    const same = { 'sec-fetch-site': 'same-origin' };
    expect((await call(`/api/sessions/${other.id}`, { method: 'DELETE', session: a, headers: same })).status).toBe(200);
  });

  it('a reset request answers 202 alike for registered and unknown addresses; bad input is 400; a bad token is 400 on token', async () => {
    server = await start();
    await signup();
    const known = await call('/api/password-reset', { json: { email: ' ADA@example.com ' } });
    const unknown = await call('/api/password-reset', { json: { email: 'nobody@example.com' } });
    for (const res of [known, unknown]) {
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ ok: true });
      expect(res.setCookies).toEqual([]);
    }
    expect([...known.headers.keys()].sort()).toEqual([...unknown.headers.keys()].sort());
    expect((await call('/api/password-reset', { json: { email: 'not an address' } })).status).toBe(400);
    const bad = await call('/api/password-reset/confirm', { json: { token: 'A'.repeat(43), newPassword: NEW_PASSWORD } });
    expect(bad.status).toBe(400);
    expect((bad.body as { issues: { path: string }[] }).issues).toEqual([{ path: 'token', message: expect.any(String) }]);
    const short = await call('/api/password-reset/confirm', { json: { token: 'A'.repeat(43), newPassword: 'short' } });
    expect((short.body as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['newPassword']);
    await server.accounts.settled();
  });

  it('a reset link dies with a password change, with another completed reset, and with the account’s deletion', async () => {
    const resetToken = await startWithMail();
    const a = await signup();
    // The address is proven: its account's changes of credential void the links mailed before them
    // (an unverified account's links survive them: the next case).
    await verifyAddress(a);
    // A password change voids the link sent before it.
    const beforeChange = await resetToken();
    expect((await call('/api/password', { json: { currentPassword: ADA.password, newPassword: NEW_PASSWORD }, session: a })).status).toBe(200);
    const afterChange = await confirm(beforeChange, 'the thief’s own password');
    expect(afterChange.status).toBe(400);
    expect((afterChange.body as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['token']);
    expect((await login(ADA, NEW_PASSWORD)).status).toBe(200);
    // Another completed reset voids the link before it.
    const first = await resetToken();
    const second = await resetToken();
    expect((await confirm(second, 'a third passphrase here')).status).toBe(200);
    expect((await confirm(first, 'the thief’s own password')).status).toBe(400);
    // Deletion voids it, also for a new account at the same address.
    const beforeDeletion = await resetToken();
    const b = sessionFrom(await login(ADA, 'a third passphrase here'))!;
    expect((await call('/api/me', { method: 'DELETE', json: { password: 'a third passphrase here' }, session: b })).status).toBe(200);
    await signup();
    expect((await confirm(beforeDeletion, 'the thief’s own password')).status).toBe(400);
    expect((await login(ADA)).status).toBe(200);
    await server!.accounts.settled();
  });

  it('a reset link of an account whose address nobody proved survives the account’s own password change, and the reset takes the account', async () => {
    const resetToken = await startWithMail();
    const a = await signup();
    const link = await resetToken();
    // Whoever made the account knows its password and changes it: the inbox owner's link still counts.
    expect((await call('/api/password', { json: { currentPassword: ADA.password, newPassword: NEW_PASSWORD }, session: a })).status).toBe(200);
    const b = sessionFrom(await login(ADA, NEW_PASSWORD))!;
    const taken = await confirm(link, 'the inbox owner’s password');
    expect(taken.status).toBe(200);
    // The reset takes the account: every session ends, only the new password signs in, the address is proven.
    expect((await me(a)).status).toBe(401);
    expect((await me(b)).status).toBe(401);
    expect((await login(ADA, NEW_PASSWORD)).status).toBe(401);
    expect((await login(ADA)).status).toBe(401);
    const owner = await login(ADA, 'the inbox owner’s password');
    expect(owner.status).toBe(200);
    expect(owner.body).toMatchObject({ user: { email: ADA.email, emailVerified: true } });
    // Used once.
    expect((await confirm(link, 'the thief’s own password')).status).toBe(400);
    await server!.accounts.settled();
  });

  it('a completed reset clears the account’s failed logins and gives that browser the device cookie: it signs in while others hammer', async () => {
    const resetToken = await startWithMail();
    await signup();
    const guesses: number[] = [];
    for (let i = 0; i < 21; i++) guesses.push((await login(ADA, `stranger guess ${i}`)).status);
    expect(guesses.at(-1)).toBe(429);
    const done = await confirm(await resetToken(), NEW_PASSWORD);
    expect(done.status).toBe(200);
    const device = deviceFrom(done);
    expect(done.setCookies).toEqual([expect.stringMatching(/^sl_device=[\w.-]+; Max-Age=31536000; Path=\/api\/login; HttpOnly; Secure; SameSite=Lax$/)]);
    // The failures were cleared: a new browser signs in at once, with the whole quota left.
    const fresh = await login(ADA, NEW_PASSWORD);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('ratelimit')).toMatch(/"login-account";r=20;/);
    // Strangers lock the account again, and keep at it while the reset's browser signs in.
    for (let i = 0; i < 21; i++) await login(ADA, `more guesses ${i}`);
    const [owner, ...others] = await Promise.all([
      call('/api/login', { json: { email: ADA.email, password: NEW_PASSWORD }, headers: { cookie: `sl_device=${device}` } }),
      ...Array.from({ length: 10 }, (_, i) => login(ADA, `hammer ${i}`)),
    ]);
    expect(others.map((r) => r.status)).toEqual(Array(10).fill(429));
    expect(owner.status).toBe(200);
    expect(owner.headers.get('ratelimit')).toMatch(/"login-device";r=20;/);
    expect((await login(ADA, NEW_PASSWORD)).status).toBe(429);
    await server!.accounts.settled();
  });

  it('reset requests are limited per address from any client (2 in any 30 minutes), registered or not, and per client IP', async () => {
    server = await start();
    await signup();
    for (const email of [ADA.email, 'nobody@example.com']) {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await call('/api/password-reset', { json: { email } })).status);
      expect(statuses).toEqual([202, 202, 429]);
    }
    const fromOne = [];
    for (let i = 0; i < 11; i++) fromOne.push((await call('/api/password-reset', { json: { email: `u${i}@example.com` }, ip: '192.0.2.9' })).status);
    expect(fromOne).toEqual([...Array(10).fill(202), 429]);
    await server.accounts.settled();
  });
});
