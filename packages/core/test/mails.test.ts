import { describe, expect, it } from 'vitest';
import { contactMail } from '@sl-accounts/service/core/testing';

const message = {
  name: 'Ada\r\nBcc: victim@example.org',
  email: 'ada@example.com',
  message: 'Line one.\nLine two, with\ttab.\n',
  clientIp: '203.0.113.5',
  userAgent: 'curl/8',
  receivedAt: new Date('2031-03-01T12:00:00.000Z'),
};

describe('contactMail', () => {
  it('goes to the operator, answers the sender, and carries the name, e-mail, time, IP and message as sent', () => {
    const mail = contactMail(message, 'ops@example.net', 'sl-accounts');
    expect(mail.to).toBe('ops@example.net');
    expect(mail.replyTo).toBe('ada@example.com');
    expect(mail.text).toContain('E-mail:   ada@example.com\nReceived: 2031-03-01T12:00:00.000Z\nFrom IP:  203.0.113.5\n\nLine one.\nLine two, with\ttab.\n');
  });

  it('puts a name with line breaks on one line, in the subject and in the text', () => {
    const mail = contactMail(message, 'ops@example.net', 'sl-accounts');
    expect(mail.subject).toBe('[sl-accounts] Contact message from Ada Bcc: victim@example.org');
    expect(mail.text).toContain('\nName:     Ada Bcc: victim@example.org\nE-mail:');
    expect(mail.text.split('\n').filter((l) => l.startsWith('Bcc'))).toEqual([]);
  });

  it('is contact mail, so a bounded outbox never lets security mail go for it', () => {
    expect(contactMail(message, 'ops@example.net', 'sl-accounts').kind).toBe('contact');
  });

  it('drops the marks that reorder text on screen, so a subject reads as typed', () => {
    const mail = contactMail({ ...message, name: 'Ada\u202Egro.elpmaxe\u2066x\u2069\u200F' }, 'ops@example.net', 'svc');
    expect(mail.subject).toBe('[svc] Contact message from Adagro.elpmaxex');
  });

  it('keeps an encoded-word a visitor typed as those characters: the mailer encodes the subject so readers see exactly them', () => {
    const mail = contactMail({ ...message, name: '=?utf-8?q?=0d=0aBcc:_x@example.org?=' }, 'ops@example.net', 'svc');
    expect(mail.subject).toBe('[svc] Contact message from =?utf-8?q?=0d=0aBcc:_x@example.org?=');
  });

  it('names the sender by address when the name is empty', () => {
    expect(contactMail({ ...message, name: '' }, 'ops@example.net', 'svc').subject).toBe('[svc] Contact message from ada@example.com');
  });
});
