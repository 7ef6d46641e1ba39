import { describe, expect, it } from 'vitest';
import { loadConfig } from '@sl-accounts/server';
import { mailSummary, senderDomain } from '../src/mail.ts';

describe('mail settings as the server reports them', () => {
  it('the start-up summary names the SMTP server by scheme, host and port, never its user or password', () => {
    const config = loadConfig({ SMTP_URL: 'smtps://mailer:s3cret%21@mail.example.org:465', MAIL_FROM: 'a@example.org' });
    expect(mailSummary(config.mail)).toBe('smtps://mail.example.org:465');
    expect(mailSummary(loadConfig({}).mail)).toBe('log (SMTP_URL unset: mails are written here, not sent)');
  });

  it('Message-IDs take the domain of MAIL_FROM, with or without a display name', () => {
    expect(senderDomain('accounts@example.org')).toBe('example.org');
    expect(senderDomain('Accounts <accounts@mail.example.org>')).toBe('mail.example.org');
    expect(senderDomain('"a@b" <accounts@example.net>')).toBe('example.net');
  });
});
