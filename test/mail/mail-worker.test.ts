/**
 * The outbox worker and the SMTP mailer together, against a real SMTP server in this process:
 * what arrives, what happens while the server is down, and the stop. The outbox is the memory
 * store's (the store contract covers every store's outbox; the server suites run on Postgres).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAccountManager, startMailWorker, systemClock, type MailOutbox, type MailWorker } from '@sl-accounts/service/core';
import { contactMail, messageIdOf, retryDelayMs } from '@sl-accounts/service/core/testing';
import { createSmtpMailer, type SmtpMailer } from '@sl-accounts/service/mail-smtp';
import { createMemoryStore, type MemoryStore } from '@sl-accounts/store-memory';
import { poll } from '../support/poll.ts';
import { messageIds, startTestSmtp, type TestSmtp } from '../support/smtp.ts';

const FROM = 'Accounts <accounts@example.org>';

const contact = (n: number) => ({
  name: `Sender ${n}`,
  email: `sender${n}@example.com`,
  message: `Message ${n}: when does the course start?`,
  clientIp: '203.0.113.9',
  userAgent: null,
  receivedAt: new Date(),
});

describe('retryDelayMs', () => {
  it('doubles from the base and stops at the cap', () => {
    const schedule = { baseMs: 5_000, maxMs: 600_000 };
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 50].map((n) => retryDelayMs(n, schedule))).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 600_000, 600_000, 600_000]);
  });
});

describe('the mail worker over SMTP', () => {
  let smtp: TestSmtp | undefined;
  let mailer: SmtpMailer | undefined;
  let worker: MailWorker | undefined;
  let store: MemoryStore;
  const failures: unknown[] = [];

  const start = (retry = { baseMs: 50, maxMs: 200 }) => {
    mailer = createSmtpMailer({ url: smtp!.url, from: FROM, timeoutMs: 2_000 });
    worker = startMailWorker({
      outbox: store.outbox,
      mailer,
      clock: systemClock,
      messageIdDomain: 'example.org',
      pollMs: 20,
      retry,
      onAttemptFailed: (_mail, error) => failures.push(error),
    });
  };

  afterEach(async () => {
    smtp?.release();
    await worker?.stop(5_000);
    mailer?.close();
    await smtp?.close();
    failures.length = 0;
  });

  it('delivers a queued contact mail with its From, To, Reply-To, subject, text and the outbox Message-ID', async () => {
    smtp = await startTestSmtp();
    store = createMemoryStore();
    const message = contact(1);
    await createAccountManager(store).addContact(message, contactMail(message, 'operator@example.net', 'sl-accounts'));
    const [queued] = await store.outbox.claim(new Date(), { limit: 1, leaseMs: 0 });
    start();
    await poll(async () => smtp!.received.length, (n) => n === 1, 10_000);
    const [mail] = smtp.received;
    expect(mail!.rcptTo).toEqual(['operator@example.net']);
    expect(mail!.mailFrom).toBe('accounts@example.org');
    expect(mail!.parsed.from?.value).toEqual([{ name: 'Accounts', address: 'accounts@example.org' }]);
    expect(mail!.parsed.replyTo?.text).toBe('sender1@example.com');
    expect(mail!.parsed.subject).toBe('[sl-accounts] Contact message from Sender 1');
    expect(mail!.parsed.messageId).toBe(messageIdOf(queued!.id, 'example.org'));
    expect(mail!.parsed.text).toContain('Message 1: when does the course start?');
    expect(mail!.parsed.text).toContain('E-mail:   sender1@example.com');
    expect(mail!.parsed.text).toContain(`Received: ${message.receivedAt.toISOString()}`);
    await poll(() => store.outbox.depth(), (d) => d === 0, 10_000);
    expect(await store.outbox.depth()).toBe(0);
  });

  it('while SMTP is down keeps every mail and retries; once it is back each arrives exactly once', async () => {
    smtp = await startTestSmtp({ up: false });
    store = createMemoryStore();
    for (let n = 1; n <= 3; n++) await createAccountManager(store).addContact(contact(n), contactMail(contact(n), 'operator@example.net', 'sl-accounts'));
    start();
    // Every mail failed at least once (a failed send ends the round, so this takes a few polls).
    await poll(async () => failures.length, (n) => n >= 6, 10_000);
    expect(failures.length).toBeGreaterThanOrEqual(6);
    expect(String((failures[0] as Error).message)).toMatch(/ECONNREFUSED/);
    expect(await store.outbox.depth()).toBe(3);
    expect(smtp.received).toEqual([]);

    await smtp.up();
    await poll(() => store.outbox.depth(), (d) => d === 0, 10_000);
    expect(await store.outbox.depth()).toBe(0);
    // Nothing is left to send: what arrived is all that will.
    expect(smtp.received.map((m) => m.parsed.subject).sort()).toEqual([1, 2, 3].map((n) => `[sl-accounts] Contact message from Sender ${n}`));
    expect(new Set(messageIds(smtp.received)).size).toBe(3);
  });

  it('stop waits for the send in flight, and the mail is recorded as sent', async () => {
    smtp = await startTestSmtp();
    store = createMemoryStore();
    smtp.hold();
    await createAccountManager(store).addContact(contact(1), contactMail(contact(1), 'operator@example.net', 'sl-accounts'));
    start();
    // The server has the mail and has not answered yet.
    await poll(async () => (await store.outbox.claim(new Date(), { limit: 1, leaseMs: 0 })).length, (n) => n === 0, 10_000);
    let stopped = false;
    const stopping = worker!.stop(10_000).then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    smtp.release();
    await stopping;
    expect(smtp.received).toHaveLength(1);
    expect(await store.outbox.depth()).toBe(0);
  });

  it('stop gives up on a send that outlasts its bound; the mail stays in the outbox for the next worker', async () => {
    smtp = await startTestSmtp();
    store = createMemoryStore();
    smtp.hold();
    await createAccountManager(store).addContact(contact(1), contactMail(contact(1), 'operator@example.net', 'sl-accounts'));
    start();
    await poll(async () => (await store.outbox.claim(new Date(), { limit: 1, leaseMs: 0 })).length, (n) => n === 0, 10_000);
    const before = Date.now();
    await worker!.stop(200);
    expect(Date.now() - before).toBeLessThan(5_000);
    expect(await store.outbox.depth()).toBe(1);
  });
});

describe('the mail worker while its store fails', () => {
  it('reports the first failure of an outage once, the recovery once, and then sends what waited', async () => {
    const smtp = await startTestSmtp();
    const store = createMemoryStore();
    let broken = true;
    let claims = 0;
    // The memory outbox, made to fail as a store that does not answer would.
    const outbox: MailOutbox = {
      claim: (now, options) => (claims++, broken ? Promise.reject(new Error('store unavailable')) : store.outbox.claim(now, options)),
      markSent: (id) => store.outbox.markSent(id),
      retryLater: (id, attempts, at, error) => store.outbox.retryLater(id, attempts, at, error),
      depth: () => store.outbox.depth(),
    };
    const errors: unknown[] = [];
    let recoveries = 0;
    const mailer = createSmtpMailer({ url: smtp.url, from: FROM, timeoutMs: 2_000 });
    const worker = startMailWorker({
      outbox,
      mailer,
      clock: systemClock,
      messageIdDomain: 'example.org',
      pollMs: 10,
      onError: (error) => errors.push(error),
      onRecovered: () => recoveries++,
    });
    try {
      await createAccountManager(store).addContact(contact(1), contactMail(contact(1), 'operator@example.net', 'sl-accounts'));
      await poll(async () => claims, (n) => n >= 5, 10_000);
      expect(errors).toHaveLength(1);
      broken = false;
      await poll(async () => smtp.received.length, (n) => n === 1, 10_000);
      expect(recoveries).toBe(1);
      expect(errors).toHaveLength(1);
    } finally {
      await worker.stop(5_000);
      mailer.close();
      await smtp.close();
    }
  });
});
