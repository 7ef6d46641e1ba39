import { describe, expect, it } from 'vitest';
import { createAccounts, SECURITY_EVENTS, securityNotices } from '@sl-accounts/core';
import { createMemoryStore } from '@sl-accounts/store-memory';

const at = new Date('2031-03-01T12:00:00.000Z');
const notices = (enabled?: Parameters<typeof securityNotices>[0]['enabled']) =>
  securityNotices({ serviceName: 'svc', resetUrl: new URL('https://accounts.example.org/reset-password?from=mail#top'), now: () => at, enabled });
const meta = { clientIp: '::ffff:203.0.113.5', userAgent: 'Mozilla/5.0 (X11)' };

describe('securityNotices', () => {
  it('writes each event as security mail with what happened, when, the client address and user agent, and the reset page', () => {
    for (const event of SECURITY_EVENTS) {
      const mail = notices().notice(event, meta, { newEmail: 'new@example.org' });
      expect(mail, event).not.toBeNull();
      expect(mail!.kind).toBe('security');
      expect(mail!.subject).toMatch(/^\[svc\] /);
      expect(mail!.text).toContain('When:        2031-03-01T12:00:00.000Z\nIP address:  203.0.113.5\nUser agent:  Mozilla/5.0 (X11)\n');
      if (event !== 'account-deleted') expect(mail!.text).toContain('https://accounts.example.org/reset-password ');
      expect(mail!.text).not.toContain('from=mail');
    }
  });

  it('names the new address of a change of address', () => {
    expect(notices().notice('email-change-requested', meta, { newEmail: 'new@example.org' })!.text).toContain('new@example.org');
    expect(notices().notice('email-changed', meta, { newEmail: 'new@example.org' })!.text).toContain('new@example.org');
  });

  it('puts a user agent on one line, without reordering marks, bounded; an address that is none is "unknown"', () => {
    const mail = notices().notice('password-changed', { clientIp: 'not an ip', userAgent: `curl\r\nBcc: x@example.org\u202E${'a'.repeat(1000)}` })!;
    expect(mail.text).toContain('IP address:  unknown\n');
    const line = mail.text.split('\n').find((l) => l.startsWith('User agent:'))!;
    expect(line.startsWith('User agent:  curl Bcc: x@example.org')).toBe(true);
    expect(line.length).toBeLessThanOrEqual(13 + 300);
    expect(mail.text.split('\n').filter((l) => l.startsWith('Bcc'))).toEqual([]);
    expect(notices().notice('password-changed', { clientIp: '127.0.0.1' })!.text).toContain('User agent:  (none sent)\n');
  });

  it('answers null for an event turned off, and for every event when all are off', () => {
    const some = notices({ 'new-device-sign-in': false, 'password-changed': true });
    expect(some.enabled('new-device-sign-in')).toBe(false);
    expect(some.notice('new-device-sign-in', meta)).toBeNull();
    expect(some.notice('password-changed', meta)).not.toBeNull();
    for (const event of SECURITY_EVENTS) expect(notices(false).notice(event, meta)).toBeNull();
  });

  it('createAccounts refuses an unknown event with a RangeError', () => {
    expect(() => createAccounts(createMemoryStore(), { securityNotices: { 'password-change': false } as never })).toThrow(/securityNotices: unknown event password-change/);
  });
});
