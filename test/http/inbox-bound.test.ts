/**
 * No inbox is a target (issue 32, docs/decisions/0033-inbox-bound.md), over HTTP as strangers go at
 * it, counting the mails a real SMTP server in this process receives: signups and deletions,
 * resends, password changes, new-device logins, change links and resets, each from a client address
 * of its own, reach one inbox at most 8 times in any hour: 4 links and notices, and 2 reset links in
 * any half hour, so 6 in a burst (the span over a whole hour, with a clock moved, is the core's
 * test/inbox.test.ts). On the memory store, and on Postgres with two
 * servers on one database taking turns (the bound is counted in the shared limiter). Then the
 * change of address that another account's links used to block (memory: the rule is the core's).
 */
// @module-tag socket
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { INBOX_LIMIT } from '@sl-accounts/service/core';
import { loadConfig, startServer, type RunningServer } from '@sl-accounts/server';
import type { ServerDatabase } from '@sl-accounts/store-postgres/testing';
import { freshIp, request, sessionFrom, type ApiResponse } from '../support/client.ts';
import { sample, scrape } from '../support/metrics.ts';
import { poll } from '../support/poll.ts';
import { STORES, TEST_ITERATIONS, hostListener, startTestServer } from '../support/server.ts';
import { FAST_MAIL, startTestSmtp, type ReceivedMail, type TestSmtp } from '../support/smtp.ts';

const VICTIM = 'victim@example.org';
const PASSWORD = 'stranger passphrase';

for (const store of STORES.filter((s) => s.kind === 'memory' || s.kind === 'postgres')) {
  describe.skipIf(store.skip !== undefined)(`an inbox strangers aim at, on the ${store.title} store`, () => {
    let smtp: TestSmtp | undefined;
    let database: ServerDatabase | undefined;
    const servers: RunningServer[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
      await database?.drop();
      await smtp?.close();
      smtp = database = undefined;
    });

    async function start(): Promise<void> {
      smtp = await startTestSmtp();
      const env = { TRUST_PROXY: '1', SMTP_URL: smtp.url, MAIL_FROM: 'Accounts <accounts@example.org>', METRICS_PORT: '0', ...FAST_MAIL };
      if (store.kind === 'memory') {
        servers.push(await startTestServer({ store: 'memory', env }));
        return;
      }
      const { createTestDatabase } = await import('@sl-accounts/store-postgres/testing');
      database = await createTestDatabase({ migrated: true });
      const config = loadConfig({ PORT: '0', PBKDF2_ITERATIONS: String(TEST_ITERATIONS), LOG_LEVEL: 'silent', STORE: 'postgres', DATABASE_URL: database.url, ...env });
      const listener = await hostListener('koa');
      for (let i = 0; i < 2; i++) servers.push(await startServer(config, listener, { logger: pino({ level: 'silent' }) }));
    }

    let turn = 0;
    /** Each request from a client address of its own, to the servers in turn. */
    const call = (path: string, options: Parameters<typeof request>[2] = {}): Promise<ApiResponse> => request(servers[turn++ % servers.length]!.url, path, { ip: freshIp(), ...options });
    /** Mails to the victim's inbox, under any of its spellings (`victim+anything@`). */
    const toVictim = (mails: readonly ReceivedMail[]) => mails.filter((m) => m.rcptTo.some((to) => /^victim(\+[^@]*)?@example\.org$/i.test(to)));

    it('signup and deletion cycles, resends, password changes, new-device logins, change links and resets from 100 client addresses mail the inbox 6 times (4 links and notices, 2 reset links)', async () => {
      await start();
      const spellings = [VICTIM, 'Victim+1@example.org', ' VICTIM+news@Example.org '];
      for (let cycle = 0; cycle < 24; cycle++) {
        const email = spellings[cycle % spellings.length]!;
        const signup = await call('/api/signup', { json: { name: 'Stranger', email, password: PASSWORD } });
        expect(signup.status, `cycle ${cycle}`).toBe(201);
        const session = sessionFrom(signup)!;
        let password = PASSWORD;
        if (cycle % 4 === 0) {
          expect([202, 429]).toContain((await call('/api/email-verification', { method: 'POST', session })).status);
          expect((await call('/api/password', { json: { currentPassword: password, newPassword: `${password}!` }, session })).status).toBe(200);
          password = `${password}!`;
          expect((await call('/api/login', { json: { email, password } })).status).toBe(200);
        }
        expect((await call('/api/me', { method: 'DELETE', json: { password }, session })).status).toBe(200);
      }
      for (let n = 0; n < 8; n++) {
        const mover = sessionFrom(await call('/api/signup', { json: { name: 'Mover', email: `mover${n}@evil.example`, password: PASSWORD } }))!;
        expect([202, 429]).toContain((await call('/api/email', { json: { newEmail: spellings[n % spellings.length], password: PASSWORD }, session: mover })).status);
      }
      expect((await call('/api/signup', { json: { name: 'Stranger', email: 'victim+reset@example.org', password: PASSWORD } })).status).toBe(201);
      const resets: number[] = [];
      for (let n = 0; n < 12; n++) resets.push((await call('/api/password-reset', { json: { email: 'victim+reset@example.org' } })).status);
      // A spelling with a subaddress takes all but the last slot, which is kept for the inbox's plain spelling.
      expect(resets).toEqual([202, ...Array(11).fill(429)]);
      expect((await call('/api/signup', { json: { name: 'Stranger', email: VICTIM, password: PASSWORD } })).status).toBe(201);
      const plainResets: number[] = [];
      for (let n = 0; n < 12; n++) plainResets.push((await call('/api/password-reset', { json: { email: VICTIM } })).status);
      expect(plainResets).toEqual([202, ...Array(11).fill(429)]);

      // Every mail the attack queued has gone (the servers share one outbox on Postgres).
      for (const server of servers) await poll(() => scrape(server.metricsUrl!), (m) => sample(m, 'sl_accounts_mail_outbox_depth') === 0, 20_000);
      const mailed = toVictim(smtp!.received);
      expect(mailed.map((m) => m.parsed.subject).filter((s) => s?.startsWith('Reset your'))).toHaveLength(2);
      expect(mailed).toHaveLength(6);
      // The strangers' own inboxes got their links: nothing but the victim's was held back.
      expect(smtp!.received.filter((m) => m.rcptTo.some((to) => to.endsWith('@evil.example')))).toHaveLength(8);
    });
  });
}

describe('the owner’s mail, and a change of address others tried to block (memory store)', () => {
  let smtp: TestSmtp | undefined;
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    await smtp?.close();
    smtp = server = undefined;
  });
  const call = (path: string, options: Parameters<typeof request>[2] = {}) => request(server!.url, path, { ip: freshIp(), ...options });
  const tokenOf = (mail: ReceivedMail) => new URL(/https?:\/\/\S+/.exec(mail.parsed.text ?? '')![0]).searchParams.get('token')!;
  async function start(): Promise<void> {
    smtp = await startTestSmtp();
    server = await startTestServer({ store: 'memory', env: { TRUST_PROXY: '1', SMTP_URL: smtp.url, MAIL_FROM: 'Accounts <accounts@example.org>', ...FAST_MAIL } });
  }
  /** The mails to `to` whose subject matches, once there are `count` (20 s at most). */
  async function mailsTo(to: string, subject: RegExp, count = 1): Promise<ReceivedMail[]> {
    const matching = () => smtp!.received.filter((m) => m.rcptTo.includes(to) && subject.test(m.parsed.subject ?? ''));
    const found = await poll(async () => matching(), (m) => m.length >= count, 20_000);
    if (found.length < count) throw new Error(`${count} mails "${subject.source}" to ${to} did not arrive within 20 s (${found.length} did)`);
    return found;
  }
  const signup = async (name: string, email: string, password: string) => {
    const res = await call('/api/signup', { json: { name, email, password } });
    expect(res.status).toBe(201);
    return sessionFrom(res)!;
  };

  it('another account’s 3 change links to X leave the owner’s request to X accepted (202) and its link arrives; once others used X’s whole share, the owner gets 429 and keeps its credit', async () => {
    await start();
    const X = 'x@example.org';
    const max = await signup('Max', 'max@evil.example', PASSWORD);
    for (let n = 0; n < 3; n++) expect((await call('/api/email', { json: { newEmail: X, password: PASSWORD }, session: max })).status).toBe(202);
    const ada = await signup('Ada', 'ada@example.com', 'correct horse battery');
    const asked = await call('/api/email', { json: { newEmail: X, password: 'correct horse battery' }, session: ada });
    expect(asked.status).toBe(202);
    expect(asked.headers.get('ratelimit')).toMatch(/^"email-link-account";r=2;t=\d+, "session-password";r=20;t=\d+$/);
    const links = await mailsTo(X, /^Confirm your new address/, 4);
    // Ada's link is the newest, and it moves Ada's account.
    const moved = await call('/api/email-verification/confirm', { json: { token: tokenOf(links.at(-1)!) }, session: ada });
    expect(moved.status).toBe(200);
    expect((moved.body as { user: { email: string } }).user.email).toBe(X);

    // Y's share used up by two other accounts: Grace's request is refused, and spends nothing of hers.
    const Y = 'y@example.org';
    for (const n of [1, 2]) {
      const other = await signup('Other', `other${n}@evil.example`, PASSWORD);
      for (let i = 0; i < (n === 1 ? 3 : INBOX_LIMIT.limit - 3); i++) expect((await call('/api/email', { json: { newEmail: Y, password: PASSWORD }, session: other })).status).toBe(202);
    }
    const grace = await signup('Grace', 'grace@example.com', 'cobol forever 1959');
    const refused = await call('/api/email', { json: { newEmail: Y, password: 'cobol forever 1959' }, session: grace });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit')).toMatch(/^"email-link-account";r=3;t=\d+, "session-password";r=20;t=\d+, "inbox";r=0;t=\d+$/);
    // Elsewhere, Grace still has all three links of the hour.
    const elsewhere = await call('/api/email', { json: { newEmail: 'grace@lovelace.example', password: 'cobol forever 1959' }, session: grace });
    expect(elsewhere.status).toBe(202);
    expect(elsewhere.headers.get('ratelimit')).toMatch(/^"email-link-account";r=2;/);
    await mailsTo(Y, /^Confirm your new address/, INBOX_LIMIT.limit);
    expect(smtp!.received.filter((m) => m.rcptTo.includes(Y))).toHaveLength(INBOX_LIMIT.limit);
  });

  it('an owner who verified the address before the attack gets every notice and link while strangers spend the inbox’s share and its reset requests', async () => {
    await start();
    const ADA = { email: 'ada@example.com', password: 'correct horse battery' };
    const ada = await signup('Ada', ADA.email, ADA.password);
    const [link] = await mailsTo(ADA.email, /^Confirm your address/);
    expect((await call('/api/email-verification/confirm', { json: { token: tokenOf(link!) }, session: ada })).status).toBe(200);
    for (let n = 0; n < 12; n++) await signup('Stranger', `ada+${n}@example.com`, PASSWORD);
    for (let n = 0; n < 6; n++) await call('/api/password-reset', { json: { email: ADA.email } });
    expect((await call('/api/signup', { json: { name: 'Stranger', email: ADA.email, password: PASSWORD } })).status).toBe(409);
    // The owner's own actions, after the attack: each one's mail arrives.
    expect((await call('/api/password', { json: { currentPassword: ADA.password, newPassword: 'a newer passphrase' }, session: ada })).status).toBe(200);
    expect((await call('/api/login', { json: { email: ADA.email, password: 'a newer passphrase' } })).status).toBe(200);
    expect((await call('/api/email', { json: { newEmail: 'ada@lovelace.example', password: 'a newer passphrase' }, session: ada })).status).toBe(202);
    await mailsTo(ADA.email, /Your password was changed/);
    await mailsTo(ADA.email, /New sign-in to your account/);
    await mailsTo(ADA.email, /A change of your address was requested/);
    await mailsTo('ada@lovelace.example', /^Confirm your new address/);
  });
});
