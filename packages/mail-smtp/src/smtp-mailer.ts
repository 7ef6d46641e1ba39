import { createTransport } from 'nodemailer';
import { encodeWord } from 'nodemailer/lib/mime-funcs';
import type { Mailer, OutgoingMail } from '@sl-accounts/service/core';

/**
 * A subject as its reader is to see it. nodemailer encodes what needs encoding, but passes a valid
 * RFC 2047 encoded-word through as it is (so that a caller may hand it one already encoded): a
 * visitor's `=?utf-8?q?=0d=0aBcc:_x@example.org?=` would then reach the header raw, and mail
 * clients would decode it into a line break and a Bcc. A value with `=?` in it is therefore encoded
 * whole, as UTF-8 base64 words, which every reader decodes back to exactly those characters.
 */
function headerText(value: string): string {
  return value.includes('=?') ? encodeWord(value, 'B', 52) : value;
}

/** An address as one address: nodemailer parses a string for display names, groups and lists. */
const address = (value: string) => ({ name: '', address: value });

/** `createSmtpMailer`'s options: the server URL, the From address, the bound on each step. */
export interface SmtpMailerOptions {
  /**
   * `smtp://user:password@host:587` (STARTTLS when the server offers it) or `smtps://…:465` (TLS
   * from the start); nodemailer reads it, query options included.
   */
  readonly url: string;
  /** The From address of every mail: `Name <address>` or a bare address. */
  readonly from: string;
  /**
   * Bound on each stage of a send (connecting, the greeting, any silence on the socket), in
   * milliseconds; default 10 s. nodemailer's own defaults (up to 10 minutes) would hold a worker
   * and a graceful stop far longer than an SMTP server that stopped answering deserves.
   */
  readonly timeoutMs?: number;
}

/** The SMTP mailer, and its close (ends pooled connections). */
export interface SmtpMailer extends Mailer {
  close(): void;
}

/** A Mailer over SMTP: one connection per mail, each mail sent as plain text with the outbox's Message-ID. */
export function createSmtpMailer(options: SmtpMailerOptions): SmtpMailer {
  // A snippet reads both from the environment: say which is missing, rather than let nodemailer fall back or fail at the first send.
  const { url, from } = options as { url?: unknown; from?: unknown };
  if (typeof url !== 'string' || !/^smtps?:\/\/[^/?#]/.test(url)) throw new TypeError(`createSmtpMailer needs a url (smtp://user:password@host:587 or smtps://…): is SMTP_URL set?`);
  if (typeof from !== 'string' || !from.includes('@')) throw new TypeError(`createSmtpMailer needs a from address (accounts@example.org): is MAIL_FROM set?`);
  const timeout = options.timeoutMs ?? 10_000;
  const transport = createTransport({ url: options.url, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout });
  return {
    async send(mail: OutgoingMail & { readonly messageId: string }): Promise<void> {
      await transport.sendMail({
        from: options.from,
        to: address(mail.to),
        subject: headerText(mail.subject),
        text: mail.text,
        messageId: mail.messageId,
        ...(mail.replyTo === undefined ? {} : { replyTo: address(mail.replyTo) }),
        // Nothing in a mail is a file or URL to fetch: the text is only ever text.
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    },
    close: () => transport.close(),
  };
}
