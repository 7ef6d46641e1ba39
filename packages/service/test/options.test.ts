/**
 * What `createService` does with what an embedder gives it (issue 32): options are checked at run
 * time and a bad one is named in one line, before anything starts; with no mailer, no mail is lost
 * silently: the service says so once and writes each mail where a person sees it.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { secretBox } from '@sl-accounts/service/core';
import { testHasher } from '@sl-accounts/service/http/testing';
import { request } from '@sl-accounts/service/http/testing';
import { createService } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { createPostgresStore } from '@sl-accounts/store-postgres';
import { createSmtpMailer } from '@sl-accounts/service/mail-smtp';

/** Asks until `check` passes or `ms` have passed; answers the last value. */
async function poll<T>(ask: () => Promise<T>, check: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await ask();
    if (check(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('createService checks its options', () => {
  it.each([
    [{}, /^createService: store: is required$/],
    [{ store: {} }, /^createService: store: must be a store/],
    [{ publicUrl: 'example.com' }, /^createService: publicUrl: must be an absolute http\(s\) URL/],
    [{ publicUrl: 'ftp://example.com' }, /^createService: publicUrl: must be an absolute http\(s\) URL/],
    [{ trustProxy: -1 }, /^createService: trustProxy: /],
    [{ trustProxy: 1.5 }, /^createService: trustProxy: /],
    [{ sweepIntervalMs: 0 }, /^createService: sweepIntervalMs: .*1000/],
    [{ basePath: '/a b' }, /^createService: basePath: BASE_PATH must be a path/],
    [{ mailer: { sendMail() {} } }, /^createService: mailer: must be a Mailer/],
    [{ mailler: { send() {} } }, /^createService: unknown option mailler$/],
  ])('%o: a TypeError that names it', async (bad, message) => {
    const options = 'store' in bad || Object.keys(bad).length === 0 ? bad : { store: createMemoryStore(), ...bad };
    const error = (await createService(options as never).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('\n');
  });

  it('names every bad option at once', async () => {
    const error = (await createService({ store: createMemoryStore(), publicUrl: 'example.com', trustProxy: -1 } as never).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/publicUrl: .*; trustProxy: /);
  });

  it('a Postgres store without a connection string (DATABASE_URL unset in a snippet) is one clear line, before any connection', () => {
    for (const connectionString of [undefined, '', '  ']) {
      expect(() => createPostgresStore({ connectionString: connectionString as unknown as string })).toThrow(/^createPostgresStore needs a connectionString \(postgres:\/\/.*\), got .*: is DATABASE_URL set\?$/);
    }
  });
});

it('the SMTP mailer of a snippet names SMTP_URL or MAIL_FROM when one is unset', () => {
  expect(() => createSmtpMailer({ url: undefined as unknown as string, from: 'a@example.org' })).toThrow(/^createSmtpMailer needs a url .*: is SMTP_URL set\?$/);
  expect(() => createSmtpMailer({ url: 'smtp://127.0.0.1:25', from: undefined as unknown as string })).toThrow(/^createSmtpMailer needs a from address .*: is MAIL_FROM set\?$/);
  createSmtpMailer({ url: 'smtp://127.0.0.1:25', from: 'a@example.org' }).close();
});

describe('no mailer given', () => {
  afterEach(() => void vi.restoreAllMocks());
  const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery' };

  it('without a logger: says so once on standard error, and writes each mail there, link included', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    // A key given: without one the development key's warning (ADR 48) would be the first line written.
    const service = await createService({ store: createMemoryStore(), hasher: testHasher, mail: { pollMs: 5 }, accounts: { secrets: secretBox(randomBytes(32)) } });
    try {
      expect(written.filter((w) => w.includes('no mailer'))).toHaveLength(1);
      expect(written[0]).toMatch(/mails are not sent.*createSmtpMailer/);
      expect((await request(service.api, 'POST /api/signup', { json: ADA })).status).toBe(201);
      const mail = await poll(async () => written.find((w) => w.includes(`To: ${ADA.email}`)), Boolean, 10_000);
      expect(mail).toMatch(/Subject: Confirm your address/);
      expect(mail).toMatch(/http:\/\/localhost\/verify-email\?token=[\w-]{43}/);
      expect(written.filter((w) => w.includes('no mailer and no logger'))).toHaveLength(1);
    } finally {
      await service.close();
    }
  });

  it('with a logger: a warning in it, and each mail written to it', async () => {
    const lines: { level: string; fields: object; message: string }[] = [];
    const at = (level: string) => (fields: object, message: string) => void lines.push({ level, fields, message });
    const logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
    const stderr = vi.spyOn(process.stderr, 'write');
    const service = await createService({ store: createMemoryStore(), hasher: testHasher, logger, mail: { pollMs: 5 }, publicUrl: 'https://accounts.example.org' });
    try {
      expect(lines.filter((l) => l.level === 'warn' && /no mailer/.test(l.message))).toHaveLength(1);
      await request(service.api, 'POST /api/signup', { json: ADA, headers: { origin: 'https://accounts.example.org' } });
      const mail = await poll(async () => lines.find((l) => l.message === 'mail'), Boolean, 10_000);
      expect(JSON.stringify(mail!.fields)).toMatch(/https:\/\/accounts\.example\.org\/verify-email\?token=/);
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      await service.close();
    }
  });
});

describe('a mailer given, and no address for the links', () => {
  afterEach(() => void vi.restoreAllMocks());
  const mailer = { send: async () => {} };

  it('says once that mailed links point at localhost, to the logger, else to standard error; never once the links have an address', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    const bare = await createService({ store: createMemoryStore(), hasher: testHasher, mailer, basePath: '/accounts' });
    await bare.close();
    expect(written.filter((w) => w.includes('mailed links point at http://localhost/accounts'))).toHaveLength(1);

    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (_: object, message: string) => void warnings.push(message), error() {} };
    const logged = await createService({ store: createMemoryStore(), hasher: testHasher, mailer, logger });
    await logged.close();
    expect(warnings.filter((m) => /mailed links point at http:\/\/localhost: pass createService publicUrl/.test(m))).toHaveLength(1);

    written.length = warnings.length = 0;
    for (const given of [{ publicUrl: 'https://accounts.example.org' }, { linkBase: 'https://example.org/accounts' }, { accounts: { resetUrl: 'https://example.org/r', verifyUrl: 'https://example.org/v' } }]) {
      const service = await createService({ store: createMemoryStore(), hasher: testHasher, mailer, logger, ...given });
      await service.close();
    }
    expect([...written, ...warnings].filter((w) => w.includes('mailed links'))).toEqual([]);
  });
});
