/**
 * The account's address and name over HTTP (issue 28): the verification link mailed at signup and
 * on request, the change of address (a link to the new address, a notice to the old one, the move
 * at the link's confirmation, which the unique index decides), the change of name, and a completed
 * reset proving the address; on every store. The mails go through a real SMTP server in this process
 * (smtp-server + mailparser); in the unit run, where nothing may listen, through the log mailer.
 * Every answer is also checked against the OpenAPI document by the client.
 */
import { afterEach, expect, it } from 'vitest';
import type { Logger } from 'pino';
import { ManualClock } from '@sl-accounts/service/core/testing';
import type { RunningServer } from '@sl-accounts/server';
import { request, sessionFrom } from '../support/client.ts';
import { IN_PROCESS } from '../support/in-process.ts';
import { capturingLogger } from '../support/logger.ts';
import { poll } from '../support/poll.ts';
import { MATRIX, describeEachServer, startTestServer, type ServerRow } from '../support/server.ts';
import { startTestSmtp } from '../support/smtp.ts';

const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };
const GRACE = { name: 'Grace', email: 'grace@example.com', password: 'cobol forever 1959' };
const VERIFY_URL = 'https://app.example.org/account/verify?lang=en';
const DAY_MS = 24 * 3600_000;

/** A mail as the recipient reads it. */
interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** Where a test server's mails arrive: a real SMTP server, or (in the unit run) the log. */
interface Mailbox {
  readonly env: Record<string, string>;
  readonly logger?: Logger;
  mails(): Mail[];
  close(): Promise<void>;
}

async function openMailbox(): Promise<Mailbox> {
  if (IN_PROCESS) {
    const { logger, lines } = capturingLogger('info');
    return {
      env: {},
      logger,
      mails: () =>
        lines.flatMap((line) => {
          if (!line.includes('"mail"')) return [];
          const { mail } = JSON.parse(line) as { mail?: Mail };
          return mail ? [{ to: mail.to, subject: mail.subject, text: mail.text }] : [];
        }),
      close: async () => {},
    };
  }
  const smtp = await startTestSmtp();
  return {
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'Accounts <accounts@example.org>' },
    mails: () => smtp.received.map((m) => ({ to: m.rcptTo.join(','), subject: m.parsed.subject ?? '', text: m.parsed.text ?? '' })),
    close: () => smtp.close(),
  };
}

const tokenOf = (mail: Mail) => new URL(/https?:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token')!;

describeEachServer('the address and the name', MATRIX, ({ host, store }: ServerRow) => {
  let server: RunningServer | undefined;
  let mailbox: Mailbox | undefined;
  afterEach(async () => {
    await server?.close();
    await mailbox?.close();
    server = mailbox = undefined;
  });
  let ip = 0;
  /** Each request from a new address unless told otherwise, so the per-IP limits stay out of the way. */
  const call = (path: string, options: Parameters<typeof request>[2] = {}) => request(server!.url, path, { ip: `198.18.${++ip >> 8}.${ip & 255}`, ...options });
  async function start(options: { clock?: ManualClock; env?: Record<string, string> } = {}) {
    mailbox = await openMailbox();
    server = await startTestServer({
      host,
      store,
      ...(mailbox.logger ? { logger: mailbox.logger } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      env: { TRUST_PROXY: '1', MAIL_POLL_MS: '20', VERIFY_URL, ...mailbox.env, ...options.env },
    });
  }
  /** The mails to `to` whose subject matches, once there are at least `count` (10 s at most). */
  async function mailsTo(to: string, subject: RegExp, count = 1): Promise<Mail[]> {
    const matching = () => mailbox!.mails().filter((m) => m.to === to && subject.test(m.subject));
    const found = await poll(async () => matching(), (m) => m.length >= count, 10_000);
    if (found.length < count) throw new Error(`${count} mails "${subject.source}" to ${to} did not arrive within 10 s (${found.length} did)`);
    return found;
  }
  const LINK = /^Confirm your address/;
  const CHANGE_LINK = /^Confirm your new address/;
  const signup = async (who = ADA) => {
    const res = await call('/api/signup', { json: who });
    expect(res.status).toBe(201);
    return sessionFrom(res)!;
  };
  const login = (email: string, password: string) => call('/api/login', { json: { email, password } });
  const me = (session: string) => call('/api/me', { session });
  const confirm = (token: string, session?: string) => call('/api/email-verification/confirm', { json: { token }, ...(session ? { session } : {}) });
  const userOf = (res: { body: unknown }) => (res.body as { user: { id: number; name: string; email: string; emailVerified: boolean } }).user;

  it('signup mails a link on VERIFY_URL that verifies its own account, once; GET /api/me shows it at once', async () => {
    await start();
    const ada = await signup();
    const grace = await signup(GRACE);
    expect(userOf(await me(ada))).toEqual({ id: expect.any(Number), name: 'Ada', email: ADA.email, emailVerified: false });
    const [mail] = await mailsTo(ADA.email, LINK);
    const link = new URL(/https?:\/\/\S+/.exec(mail!.text)![0]);
    expect(link.origin + link.pathname).toBe('https://app.example.org/account/verify');
    expect(link.searchParams.get('lang')).toBe('en');
    expect(Buffer.from(tokenOf(mail!), 'base64url')).toHaveLength(32);
    // A link proves the inbox, not who holds the account: without one of the account's sessions it
    // changes nothing, the link included.
    const unsigned = await confirm(tokenOf(mail!));
    expect(unsigned.status).toBe(403);
    expect(unsigned.body).toMatchObject({ ok: false, code: 'sign_in_required' });
    expect(userOf(await me(ada)).emailVerified).toBe(false);
    // Confirmed in the browser signed in to the account.
    const done = await confirm(tokenOf(mail!), ada);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ ok: true, user: { id: expect.any(Number), name: 'Ada', email: ADA.email, emailVerified: true } });
    expect(userOf(await me(ada)).emailVerified).toBe(true);
    // Only its own account.
    expect(userOf(await me(grace)).emailVerified).toBe(false);
    const again = await confirm(tokenOf(mail!), ada);
    expect(again.status).toBe(400);
    expect((again.body as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['token']);
    // Grace's link, confirmed from Ada's browser, is refused (Ada's session is not Grace's): Grace stays
    // unverified and her link usable; from Grace's browser it verifies Grace.
    const [graces] = await mailsTo(GRACE.email, LINK);
    const fromAda = await confirm(tokenOf(graces!), ada);
    expect(fromAda.status).toBe(403);
    expect(fromAda.body).toMatchObject({ ok: false, code: 'sign_in_required' });
    expect(userOf(await me(grace)).emailVerified).toBe(false);
    expect(userOf(await confirm(tokenOf(graces!), grace)).email).toBe(GRACE.email);
    expect(userOf(await me(grace)).emailVerified).toBe(true);
    for (const token of ['', 'x'.repeat(201)]) expect((await confirm(token)).status).toBe(400);
  });

  it('a new link supersedes the one before; an expired one fails; a verified address gets none; links are limited per account', async () => {
    const clock = new ManualClock();
    await start({ clock });
    const ada = await signup();
    const [first] = await mailsTo(ADA.email, LINK);
    expect((await call('/api/email-verification', { method: 'POST' })).status).toBe(401);
    const resent = await call('/api/email-verification', { method: 'POST', session: ada });
    expect(resent.status).toBe(202);
    expect(resent.body).toEqual({ ok: true });
    expect(resent.headers.get('ratelimit')).toContain('"email-link-account";r=2;');
    const second = (await mailsTo(ADA.email, LINK, 2))[1]!;
    expect((await confirm(tokenOf(first!), ada)).status).toBe(400);
    // Valid a day: not one millisecond longer.
    clock.advance(DAY_MS);
    expect((await confirm(tokenOf(second), ada)).status).toBe(400);
    expect(userOf(await me(ada)).emailVerified).toBe(false);
    expect((await call('/api/email-verification', { method: 'POST', session: ada })).status).toBe(202);
    const third = (await mailsTo(ADA.email, LINK, 3))[2]!;
    clock.advance(DAY_MS - 1);
    expect(userOf(await confirm(tokenOf(third), ada)).emailVerified).toBe(true);
    // Verified: the answer is the same, but no link is mailed (the reset mail asked for next comes first).
    expect((await call('/api/email-verification', { method: 'POST', session: ada })).status).toBe(202);
    expect((await call('/api/password-reset', { json: { email: ADA.email } })).status).toBe(202);
    await mailsTo(ADA.email, /^Reset your/);
    expect(await mailsTo(ADA.email, LINK)).toHaveLength(3);
    // Three links an hour per account, whatever the client's address.
    const grace = await signup(GRACE);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call('/api/email-verification', { method: 'POST', session: grace })).status);
    expect(statuses).toEqual([202, 202, 202, 429]);
  });

  it('a change of address mails a link to the new address and a notice to the old; confirming it moves the account and ends its other sessions', async () => {
    await start();
    const first = await signup();
    // Ada proves her address: the notices to it are her own mail (the old address of an account
    // nobody verified is not told of the move: see the inbox-bound suite).
    expect((await confirm(tokenOf((await mailsTo(ADA.email, LINK))[0]!), first)).status).toBe(200);
    const second = sessionFrom(await login(ADA.email, ADA.password))!;
    await signup(GRACE);
    // The refusals from an account of their own: every request counts against its account's 3 links an hour.
    const MAX = { name: 'Max', email: 'max@example.com', password: 'refused three times' };
    const refused = await signup(MAX);
    const change = (json: unknown) => call('/api/email', { json, session: refused });
    expect((await call('/api/email', { json: { newEmail: 'lovelace@example.org', password: ADA.password } })).status).toBe(401);
    expect((await change({ newEmail: 'not an address', password: MAX.password })).status).toBe(400);
    expect((await change({ newEmail: 'lovelace@example.org', password: 'wrong password' })).status).toBe(403);
    const same = await change({ newEmail: ' MAX@example.com ', password: MAX.password });
    expect(same.status).toBe(400);
    expect((same.body as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['newEmail']);
    const taken = await change({ newEmail: GRACE.email, password: MAX.password });
    expect(taken.status).toBe(409);
    expect(taken.headers.get('ratelimit')).toContain('"email-link-account";r=0;');
    // The fourth in the hour is refused whatever it asks, so no account tests addresses for registration without bound.
    for (const newEmail of [GRACE.email, 'free@example.org']) expect((await change({ newEmail, password: MAX.password })).status).toBe(429);
    const asked = await call('/api/email', { json: { newEmail: 'Lovelace@Example.org', password: ADA.password }, session: first, headers: { 'user-agent': 'Analytical Engine/1.0' } });
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ ok: true });
    const [link] = await mailsTo('lovelace@example.org', CHANGE_LINK);
    const [notice] = await mailsTo(ADA.email, /A change of your address was requested/);
    expect(notice!.text).toContain('lovelace@example.org');
    expect(notice!.text).toContain('Analytical Engine/1.0');
    expect(notice!.text).toMatch(/IP address: +198\.18\./);
    expect(notice!.text).not.toContain(tokenOf(link!));
    // Nothing moved yet.
    expect(userOf(await me(first)).email).toBe(ADA.email);
    expect((await login(ADA.email, ADA.password)).status).toBe(200);
    const moved = await confirm(tokenOf(link!), first);
    expect(moved.status).toBe(200);
    expect(userOf(moved)).toEqual({ id: userOf(await me(first)).id, name: 'Ada', email: 'lovelace@example.org', emailVerified: true });
    expect((await me(second)).status).toBe(401);
    expect(userOf(await me(first))).toMatchObject({ email: 'lovelace@example.org', emailVerified: true });
    expect((await login(ADA.email, ADA.password)).status).toBe(401);
    expect((await login('lovelace@example.org', ADA.password)).status).toBe(200);
    const [toNew] = await mailsTo('lovelace@example.org', /Your address was changed/);
    const [toOld] = await mailsTo(ADA.email, /Your address was changed/);
    for (const mail of [toNew!, toOld!]) expect(mail.text).toContain('lovelace@example.org');
    expect((await confirm(tokenOf(link!), first)).status).toBe(400);
    // The old address is free to sign up again.
    await signup(ADA);
  });

  it('a change asked for by someone who knew the password dies when the owner resets or changes it, as the notice advises', async () => {
    await start();
    const owner = await signup();
    const thief = sessionFrom(await login(ADA.email, ADA.password))!;
    const steal = async (to: string, count: number) => {
      expect((await call('/api/email', { json: { newEmail: to, password: ADA.password }, session: thief })).status).toBe(202);
      return tokenOf((await mailsTo(to, CHANGE_LINK, count))[count - 1]!);
    };
    // The owner follows the notice's advice: a reset, through the mailbox.
    const first = await steal('thief@example.net', 1);
    const [notice] = await mailsTo(ADA.email, /A change of your address was requested/);
    expect(notice!.text).toContain('cancels the change of address');
    expect((await call('/api/password-reset', { json: { email: ADA.email } })).status).toBe(202);
    const [reset] = await mailsTo(ADA.email, /^Reset your/);
    expect((await call('/api/password-reset/confirm', { json: { token: tokenOf(reset!), newPassword: 'reset by the owner' } })).status).toBe(200);
    expect((await confirm(first)).status).toBe(400);
    expect((await login('thief@example.net', 'reset by the owner')).status).toBe(401);
    // The same with a password change from a session the owner still has.
    const again = sessionFrom(await login(ADA.email, 'reset by the owner'))!;
    const thief2 = sessionFrom(await login(ADA.email, 'reset by the owner'))!;
    expect((await call('/api/email', { json: { newEmail: 'thief@example.net', password: 'reset by the owner' }, session: thief2 })).status).toBe(202);
    const second = tokenOf((await mailsTo('thief@example.net', CHANGE_LINK, 2))[1]!);
    expect((await call('/api/password', { json: { currentPassword: 'reset by the owner', newPassword: 'changed by the owner' }, session: again })).status).toBe(200);
    expect((await confirm(second)).status).toBe(400);
    expect(userOf(await me(again))).toMatchObject({ email: ADA.email });
    expect((await login(ADA.email, 'changed by the owner')).status).toBe(200);
    expect((await me(owner)).status).toBe(401);
  });

  it('a change to an address taken since the link was mailed is 409 and changes nothing', async () => {
    await start();
    const ada = await signup();
    expect((await call('/api/email', { json: { newEmail: 'wanted@example.org', password: ADA.password }, session: ada })).status).toBe(202);
    const [link] = await mailsTo('wanted@example.org', CHANGE_LINK);
    await signup({ name: 'Quick', email: 'wanted@example.org', password: 'first come first served' });
    const taken = await confirm(tokenOf(link!), ada);
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ ok: false, error: 'This e-mail address is already registered', code: 'email_taken' });
    expect(userOf(await me(ada))).toMatchObject({ email: ADA.email, emailVerified: false });
    expect((await login(ADA.email, ADA.password)).status).toBe(200);
  });

  it('two accounts racing to confirm a move to one address: exactly one gets it', async () => {
    await start();
    const racers = [
      { name: 'Racer A', email: 'a@example.com', password: 'racer a passphrase' },
      { name: 'Racer B', email: 'b@example.com', password: 'racer b passphrase' },
    ];
    const tokens: string[] = [];
    const sessions: string[] = [];
    for (const [i, who] of racers.entries()) {
      const session = await signup(who);
      sessions.push(session);
      expect((await call('/api/email', { json: { newEmail: 'prize@example.org', password: who.password }, session })).status).toBe(202);
      tokens.push(tokenOf((await mailsTo('prize@example.org', CHANGE_LINK, i + 1))[i]!));
    }
    // Each confirmed in its own account's browser.
    const results = await Promise.all(tokens.map((token, i) => confirm(token, sessions[i])));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = racers[results.findIndex((r) => r.status === 200)]!;
    const loser = racers.find((r) => r !== winner)!;
    expect((await login('prize@example.org', winner.password)).status).toBe(200);
    expect((await login('prize@example.org', loser.password)).status).toBe(401);
    expect((await login(loser.email, loser.password)).status).toBe(200);
  });

  it('PATCH /api/me sets the name within the signup bounds, trimmed; a completed reset verifies the address', async () => {
    await start();
    const ada = await signup();
    const rename = (json: unknown, session: string | null = ada) => call('/api/me', { method: 'PATCH', json, ...(session ? { session } : {}) });
    const renamed = await rename({ name: '  Augusta Ada King ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ok: true, user: { id: expect.any(Number), name: 'Augusta Ada King', email: ADA.email, emailVerified: false } });
    expect(userOf(await me(ada)).name).toBe('Augusta Ada King');
    // Out of bounds; a line break, an escape sequence, a right-to-left override or nothing visible (issue 32).
    for (const name of ['A', '  A  ', 'x'.repeat(121), '', 42, 'Ada\r\nBcc: x@example.org', 'Ada\u001B[31m', 'Ada\u202Eevil', '\u200B\u200B\u200B']) {
      const res = await rename({ name });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect((res.body as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['name']);
    }
    expect((await rename({})).status).toBe(400);
    expect(userOf(await rename({ name: 'Al' })).name).toBe('Al');
    expect(userOf(await rename({ name: `  ${'é'.repeat(120)}  ` })).name).toBe('é'.repeat(120));
    expect((await rename({ name: 'Nobody' }, null)).status).toBe(401);
    expect(userOf(await me(ada)).name).toBe('é'.repeat(120));
    // A reset link read at the address proves it.
    expect((await call('/api/password-reset', { json: { email: ADA.email } })).status).toBe(202);
    const [reset] = await mailsTo(ADA.email, /^Reset your/);
    expect((await call('/api/password-reset/confirm', { json: { token: tokenOf(reset!), newPassword: 'a brand new passphrase' } })).status).toBe(200);
    expect(userOf(await login(ADA.email, 'a brand new passphrase')).emailVerified).toBe(true);
  });

  it('PATCH /api/me is limited per session: the 21st change of name in an hour is 429 with Retry-After and the RateLimit headers; another session is not held up', async () => {
    await start();
    const ada = await signup();
    const other = sessionFrom(await login(ADA.email, ADA.password))!;
    const rename = (n: number, session = ada) => call('/api/me', { method: 'PATCH', json: { name: `Ada ${n}` }, session });
    for (let n = 1; n <= 20; n++) {
      const res = await rename(n);
      expect(res.status, `change ${n}`).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('"profile-session";q=20;w=3600');
      expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"profile-session";r=${20 - n};t=\\d+$`));
    }
    const refused = await rename(21);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit')).toMatch(/^"profile-session";r=0;t=\d+$/);
    expect(userOf(await me(ada)).name).toBe('Ada 20');
    expect(userOf(await rename(22, other)).name).toBe('Ada 22');
  });
});
