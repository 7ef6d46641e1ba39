/**
 * Security notices through a real server, its outbox and a real SMTP server in this process, on
 * every store but SQLite (SERVER_STORES: its outbox meets SMTP in mail.test.ts, its port in the store contract): a password change, a completed reset, a deletion and a sign-in from a new device each
 * mail the account's address exactly once, also when SMTP is down at the time and back later; each
 * says when, from which address and user agent, and where to reset the password (PUBLIC_URL's page,
 * never the request's Host), and carries no secret. A failed change sends nothing, a turned-off notice
 * is not sent, and a sign-in with the account's genuine device cookie is no new device.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { request, sessionFrom, type ApiResponse } from '../support/client.ts';
import { sample, scrape } from '../support/metrics.ts';
import { poll } from '../support/poll.ts';
import { SERVER_STORES, startTestServer } from '../support/server.ts';
import { FAST_MAIL, mailField, messageIds, startTestSmtp, type ReceivedMail, type TestSmtp } from '../support/smtp.ts';

const P = 'sl_accounts_';
const PUBLIC_URL = 'https://accounts.example.org';
const NEW_PASSWORD = 'a new and longer passphrase';
const SUBJECTS = {
  changed: '[sl-accounts] Your password was changed',
  reset: '[sl-accounts] Your password was reset',
  deleted: '[sl-accounts] Your account was deleted',
  newDevice: '[sl-accounts] New sign-in to your account',
};

const deviceFrom = (res: ApiResponse) => res.setCookies.map((c) => /^sl_device=([^;]+)/.exec(c)?.[1]).find(Boolean);
const tokenIn = (mail: ReceivedMail) => new URL(/https?:\/\/\S+/.exec(mail.parsed.text ?? '')![0]).searchParams.get('token')!;
/** The line of a notice's text that starts with `label`, after the label. */

/** The verification link every signup mails: no notice, and left out of what these cases read. */
const isVerificationLink = (mail: ReceivedMail) => (mail.parsed.subject ?? '').startsWith('Confirm your address');

let user = 0;
let ip = 0;
const nextIp = () => `198.51.100.${(++ip % 250) + 1}`;

for (const store of SERVER_STORES) {
  describe.skipIf(store.skip !== undefined)(`security notices on the ${store.title} store`, () => {
    let smtp: TestSmtp | undefined;
    let server: RunningServer | undefined;
    afterEach(async () => {
      await server?.close();
      await smtp?.close();
      server = smtp = undefined;
    });

    const start = async (extra: Record<string, string> = {}) =>
      (server = await startTestServer({
        store: store.kind,
        env: { SMTP_URL: smtp!.url, MAIL_FROM: 'Accounts <accounts@example.org>', PUBLIC_URL, TRUST_PROXY: '1', METRICS_PORT: '0', ...FAST_MAIL, ...extra },
      }));
    /** A request from `from` (X-Forwarded-For) with the user agent `agent`, and the cookies given. */
    const call = (path: string, options: { json?: unknown; method?: string; session?: string; cookie?: string; from?: string; agent?: string } = {}) => {
      const cookies = [options.session ? `sl_session=${options.session}` : '', options.cookie ?? ''].filter(Boolean).join('; ');
      return request(server!.url, path, {
        ...(options.json === undefined ? {} : { json: options.json }),
        ...(options.method ? { method: options.method } : {}),
        ip: options.from ?? nextIp(),
        headers: { 'user-agent': options.agent ?? 'notice-test/1', ...(cookies ? { cookie: cookies } : {}) },
      });
    };
    const signup = async () => {
      const who = { name: 'Ada', email: `ada${++user}@example.com`, password: 'correct horse battery' };
      const res = await call('/api/signup', { json: who });
      expect(res.status).toBe(201);
      return { who, session: sessionFrom(res)!, device: deviceFrom(res)! };
    };
    const to = (recipient: string) => smtp!.received.filter((m) => m.rcptTo.includes(recipient) && !isVerificationLink(m));
    /** Waits until the outbox is empty and `sent` mails went out in all (the worker counts each just after its row goes). */
    const drained = (sent: number) =>
      poll(() => scrape(server!.metricsUrl!), (m) => sample(m, `${P}mail_outbox_depth`) === 0 && sample(m, `${P}mails_sent_total`) === sent, 15_000);

    it('each notice arrives exactly once with SMTP down then up: what, when, from which address and user agent, the reset page; no secret', async () => {
      smtp = await startTestSmtp();
      await start();
      const { who, device } = await signup();
      // The reset link first, while SMTP is up (the only mail here that is not a notice).
      expect((await call('/api/password-reset', { json: { email: who.email } })).status).toBe(202);
      await server!.accounts.settled();
      const resetMail = await poll(async () => to(who.email), (mails) => mails.length === 1, 10_000);
      const resetToken = tokenIn(resetMail[0]!);
      // The signup's verification link went out before it (queued first).
      await drained(2);
      await smtp.down();

      const started = Date.now();
      // Each event from its own client address and user agent.
      const reset = await call('/api/password-reset/confirm', { json: { token: resetToken, newPassword: NEW_PASSWORD }, from: '203.0.113.10', agent: 'ResetBrowser/1.0' });
      expect(reset.status).toBe(200);
      const fresh = await call('/api/login', { json: { email: who.email, password: NEW_PASSWORD }, from: '203.0.113.11', agent: 'NewDevice/2.0 (Phone)' });
      expect(fresh.status).toBe(200);
      const session = sessionFrom(fresh)!;
      // The signup's browser: its device cookie is genuine, so no notice.
      expect((await call('/api/login', { json: { email: who.email, password: NEW_PASSWORD }, cookie: `sl_device=${device}` })).status).toBe(200);
      const changed = await call('/api/password', { json: { currentPassword: NEW_PASSWORD, newPassword: 'the third passphrase here' }, session, from: '203.0.113.12', agent: 'Changer/3.0' });
      expect(changed.status).toBe(200);
      const deleted = await call('/api/me', { method: 'DELETE', json: { password: 'the third passphrase here' }, session, from: '203.0.113.13', agent: 'Deleter/4.0' });
      expect(deleted.status).toBe(200);

      const down = await poll(() => scrape(server!.metricsUrl!), (m) => sample(m, `${P}mail_send_failures_total`) >= 1 && sample(m, `${P}mail_outbox_depth`) === 4, 10_000);
      expect(sample(down, `${P}mail_outbox_depth`)).toBe(4);
      expect(sample(down, `${P}mails_sent_total`)).toBe(2);

      await smtp.up();
      await drained(6);
      const notices = to(who.email).slice(1);
      expect(notices.map((m) => m.parsed.subject).sort()).toEqual([SUBJECTS.changed, SUBJECTS.deleted, SUBJECTS.newDevice, SUBJECTS.reset].sort());
      expect(new Set(messageIds(notices)).size).toBe(4);
      const finished = Date.now();

      const bySubject = (subject: string) => notices.find((m) => m.parsed.subject === subject)!;
      const expected: readonly (readonly [subject: string, from: string, agent: string])[] = [
        [SUBJECTS.reset, '203.0.113.10', 'ResetBrowser/1.0'],
        [SUBJECTS.newDevice, '203.0.113.11', 'NewDevice/2.0 (Phone)'],
        [SUBJECTS.changed, '203.0.113.12', 'Changer/3.0'],
        [SUBJECTS.deleted, '203.0.113.13', 'Deleter/4.0'],
      ];
      for (const [subject, from, agent] of expected) {
        const mail = bySubject(subject);
        expect(mail.rcptTo, subject).toEqual([who.email]);
        expect(mailField(mail, 'IP address:'), subject).toBe(from);
        expect(mailField(mail, 'User agent:'), subject).toBe(agent);
        const when = new Date(mailField(mail, 'When:')!).getTime();
        expect(when, subject).toBeGreaterThanOrEqual(started - 1);
        expect(when, subject).toBeLessThanOrEqual(finished);
        const text = mail.parsed.text ?? '';
        if (subject !== SUBJECTS.deleted) expect(text.split('\n'), subject).toContain(`${PUBLIC_URL}/reset-password`);
        // Never a link to where the request went, and no secret: no token, password, session or device proof.
        expect(text, subject).not.toContain(new URL(server!.url).host);
        for (const secret of [resetToken, who.password, NEW_PASSWORD, 'the third passphrase here', session, device, deviceFrom(fresh)!]) expect(text, subject).not.toContain(secret);
      }
      // Exactly once: the outbox is empty, so nothing is left to be sent again.
      expect(to(who.email)).toHaveLength(5);
    });

    it('a change that fails sends nothing: wrong passwords, a rate-limited check, a bad reset token, a wrong login', async () => {
      smtp = await startTestSmtp();
      // Two failed checks per account (and per session) a window: the third is refused whatever it carries.
      await start({ LOGIN_FAILURES_PER_ACCOUNT: '2' });
      const { who, session, device } = await signup();
      // The signup's verification link (no notice) goes first.
      await drained(1);
      expect((await call('/api/login', { json: { email: who.email, password: 'wrong password here' } })).status).toBe(401);
      expect((await call('/api/password', { json: { currentPassword: 'wrong password here', newPassword: NEW_PASSWORD }, session })).status).toBe(403);
      expect((await call('/api/me', { method: 'DELETE', json: { password: 'wrong password again' }, session })).status).toBe(403);
      expect((await call('/api/password', { json: { currentPassword: who.password, newPassword: NEW_PASSWORD }, session })).status).toBe(429);
      expect((await call('/api/me', { method: 'DELETE', json: { password: who.password }, session })).status).toBe(429);
      expect((await call('/api/password-reset/confirm', { json: { token: 'A'.repeat(43), newPassword: NEW_PASSWORD } })).status).toBe(400);
      // The account's login lock, now full from others' failures: the right password without a device cookie is refused.
      expect((await call('/api/login', { json: { email: who.email, password: 'wrong password 3' } })).status).toBe(401);
      expect((await call('/api/login', { json: { email: who.email, password: who.password } })).status).toBe(429);
      const metrics = await scrape(server!.metricsUrl!);
      expect(sample(metrics, `${P}mail_outbox_depth`)).toBe(0);
      // The owner's browser still signs in (its own limit), as a known device: still nothing.
      expect((await call('/api/login', { json: { email: who.email, password: who.password }, cookie: `sl_device=${device}` })).status).toBe(200);
      expect(sample(await scrape(server!.metricsUrl!), `${P}mail_outbox_depth`)).toBe(0);
      expect(sample(await scrape(server!.metricsUrl!), `${P}mails_sent_total`)).toBe(1);
      expect(to(who.email)).toEqual([]);
    });
  });
}

describe('security notices that are off, and what counts as a new device', () => {
  let smtp: TestSmtp | undefined;
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    await smtp?.close();
    server = smtp = undefined;
  });

  const start = async (extra: Record<string, string> = {}) => {
    smtp = await startTestSmtp();
    server = await startTestServer({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'accounts@example.org', PUBLIC_URL, TRUST_PROXY: '1', METRICS_PORT: '0', ...FAST_MAIL, ...extra } });
    return server;
  };
  const call = (path: string, options: { json?: unknown; method?: string; session?: string; cookie?: string } = {}) => {
    const cookies = [options.session ? `sl_session=${options.session}` : '', options.cookie ?? ''].filter(Boolean).join('; ');
    return request(server!.url, path, {
      ...(options.json === undefined ? {} : { json: options.json }),
      ...(options.method ? { method: options.method } : {}),
      ip: nextIp(),
      ...(cookies ? { headers: { cookie: cookies } } : {}),
    });
  };
  const subjectsTo = (recipient: string) => smtp!.received.filter((m) => m.rcptTo.includes(recipient) && !isVerificationLink(m)).map((m) => m.parsed.subject);
  const drained = (sent: number) =>
    poll(() => scrape(server!.metricsUrl!), (m) => sample(m, `${P}mail_outbox_depth`) === 0 && sample(m, `${P}mails_sent_total`) === sent, 15_000);

  it('SECURITY_NOTICES_OFF turns the named notices off; the others still go', async () => {
    await start({ SECURITY_NOTICES_OFF: 'new-device-sign-in,password-changed' });
    const who = { name: 'Ada', email: `ada${++user}@example.com`, password: 'correct horse battery' };
    expect((await call('/api/signup', { json: who })).status).toBe(201);
    const session = sessionFrom(await call('/api/login', { json: { email: who.email, password: who.password } }))!;
    expect((await call('/api/password', { json: { currentPassword: who.password, newPassword: NEW_PASSWORD }, session })).status).toBe(200);
    expect((await call('/api/me', { method: 'DELETE', json: { password: NEW_PASSWORD }, session })).status).toBe(200);
    // The deletion's notice was queued last: once it and the signup's verification link are out, the outbox held nothing else.
    await drained(2);
    expect(subjectsTo(who.email)).toEqual([SUBJECTS.deleted]);
  });

  it('SECURITY_NOTICES_OFF=all sends none', async () => {
    await start({ SECURITY_NOTICES_OFF: 'all' });
    const who = { name: 'Ada', email: `ada${++user}@example.com`, password: 'correct horse battery' };
    expect((await call('/api/signup', { json: who })).status).toBe(201);
    const session = sessionFrom(await call('/api/login', { json: { email: who.email, password: who.password } }))!;
    expect((await call('/api/me', { method: 'DELETE', json: { password: who.password }, session })).status).toBe(200);
    // Only the signup's verification link, which is no notice, goes out.
    await drained(1);
    expect(subjectsTo(who.email)).toEqual([]);
  });

  it('a sign-in with the account’s genuine device cookie is no new device; without one, with a tampered one or another account’s, it is', async () => {
    await start();
    const ada = { name: 'Ada', email: `ada${++user}@example.com`, password: 'correct horse battery' };
    const grace = { name: 'Grace', email: `grace${user}@example.com`, password: 'another horse battery' };
    const adaDevice = deviceFrom(await call('/api/signup', { json: ada }))!;
    const graceDevice = deviceFrom(await call('/api/signup', { json: grace }))!;
    const login = (cookie?: string) => call('/api/login', { json: { email: ada.email, password: ada.password }, ...(cookie ? { cookie } : {}) });
    // The first sign-in right after signup, from the browser that signed up: known (signup gave it the cookie).
    expect((await login(`sl_device=${adaDevice}`)).status).toBe(200);
    expect((await login(`sl_device=${graceDevice}; sl_device=${adaDevice}`)).status).toBe(200);
    // The two signups' verification links only.
    await drained(2);
    expect(subjectsTo(ada.email)).toEqual([]);
    const tampered = `${adaDevice.slice(0, -2)}${adaDevice.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const cookie of [undefined, `sl_device=${tampered}`, `sl_device=${graceDevice}`]) expect((await login(cookie)).status).toBe(200);
    await drained(5);
    expect(subjectsTo(ada.email)).toEqual([SUBJECTS.newDevice, SUBJECTS.newDevice, SUBJECTS.newDevice]);
    expect(subjectsTo(grace.email)).toEqual([]);
  });
});
