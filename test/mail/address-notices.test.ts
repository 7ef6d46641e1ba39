/**
 * The mails of a change of address through a real server, its outbox and a real SMTP server in this
 * process, on every store but SQLite (SERVER_STORES: its outbox meets SMTP in mail.test.ts), with SMTP down when they are queued and back later: the link to the new
 * address, "A change of your address was requested" to the old one, and on confirmation "Your
 * address was changed" to both, each arriving exactly once, with when, from which address and user
 * agent, and no secret.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { request, sessionFrom } from '../support/client.ts';
import { sample, scrape } from '../support/metrics.ts';
import { poll } from '../support/poll.ts';
import { SERVER_STORES, startTestServer } from '../support/server.ts';
import { FAST_MAIL, mailField, messageIds, startTestSmtp, type TestSmtp } from '../support/smtp.ts';

const P = 'sl_accounts_';
const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };
const NEW = 'ada@lovelace.example';


for (const store of SERVER_STORES) {
  describe.skipIf(store.skip !== undefined)(`the mails of a change of address on the ${store.title} store`, () => {
    let smtp: TestSmtp | undefined;
    let server: RunningServer | undefined;
    afterEach(async () => {
      await server?.close();
      await smtp?.close();
      server = smtp = undefined;
    });

    it('each arrives exactly once with SMTP down then up, to the right address, saying when, from where and with what', async () => {
      smtp = await startTestSmtp();
      server = await startTestServer({
        store: store.kind,
        env: { SMTP_URL: smtp.url, MAIL_FROM: 'Accounts <accounts@example.org>', PUBLIC_URL: 'https://accounts.example.org', TRUST_PROXY: '1', METRICS_PORT: '0', ...FAST_MAIL },
      });
      const url = server.url;
      const metrics = () => scrape(server!.metricsUrl!);
      const signup = await request(url, '/api/signup', { ip: '203.0.113.1', json: ADA });
      expect(signup.status).toBe(201);
      const session = sessionFrom(signup)!;
      // Ada proves her address first: the notices to it are her own mail (ADR 33: the old address of an
      // account nobody verified is not told of the move).
      await poll(async () => smtp!.received.length, (n) => n === 1, 10_000);
      const verification = new URL(/https?:\/\/\S+/.exec(smtp.received[0]!.parsed.text ?? '')![0]).searchParams.get('token')!;
      expect((await request(url, '/api/email-verification/confirm', { ip: '203.0.113.1', session, json: { token: verification } })).status).toBe(200);
      await smtp.down();
      const asked = await request(url, '/api/email', { ip: '203.0.113.2', headers: { 'user-agent': 'Asker/1.0' }, session, json: { newEmail: NEW, password: ADA.password } });
      expect(asked.status).toBe(202);
      // The change's link and its notice wait while SMTP is down.
      const down = await poll(metrics, (m) => sample(m, `${P}mail_send_failures_total`) >= 1 && sample(m, `${P}mail_outbox_depth`) === 2, 10_000);
      expect(sample(down, `${P}mail_outbox_depth`)).toBe(2);
      await smtp.up();
      await poll(async () => smtp!.received.length, (n) => n === 3, 15_000);
      const link = smtp.received.find((m) => m.rcptTo.includes(NEW))!;
      expect(link.parsed.subject).toBe('Confirm your new address for sl-accounts');
      const token = new URL(/https?:\/\/\S+/.exec(link.parsed.text ?? '')![0]).searchParams.get('token')!;
      const requested = smtp.received.find((m) => m.parsed.subject === '[sl-accounts] A change of your address was requested')!;
      expect(requested.rcptTo).toEqual([ADA.email]);
      expect(mailField(requested, 'IP address:')).toBe('203.0.113.2');
      expect(mailField(requested, 'User agent:')).toBe('Asker/1.0');

      await smtp.down();
      const before = Date.now();
      const moved = await request(url, '/api/email-verification/confirm', { ip: '203.0.113.3', headers: { 'user-agent': 'Confirmer/2.0' }, session, json: { token } });
      expect(moved.status).toBe(200);
      const waiting = await poll(metrics, (m) => sample(m, `${P}mail_outbox_depth`) === 2 && sample(m, `${P}mail_send_failures_total`) >= 2, 10_000);
      expect(sample(waiting, `${P}mail_outbox_depth`)).toBe(2);
      await smtp.up();
      await poll(async () => smtp!.received.length, (n) => n >= 5, 15_000);
      await poll(metrics, (m) => sample(m, `${P}mail_outbox_depth`) === 0, 10_000);
      const changed = smtp.received.filter((m) => m.parsed.subject === '[sl-accounts] Your address was changed');
      expect(changed.map((m) => m.rcptTo.join()).sort()).toEqual([ADA.email, NEW].sort());
      for (const mail of changed) {
        expect(mailField(mail, 'IP address:')).toBe('203.0.113.3');
        expect(mailField(mail, 'User agent:')).toBe('Confirmer/2.0');
        expect(new Date(mailField(mail, 'When:')!).getTime()).toBeGreaterThanOrEqual(before - 1);
        expect(mail.parsed.text).toContain(NEW);
        for (const secret of [token, ADA.password, session]) expect(mail.parsed.text).not.toContain(secret);
      }
      // Exactly once each: five mails, five Message-IDs, nothing left to send.
      expect(smtp.received).toHaveLength(5);
      expect(new Set(messageIds(smtp.received)).size).toBe(5);
    });
  });
}
