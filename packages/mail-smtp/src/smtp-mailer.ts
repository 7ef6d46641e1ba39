import { createTransport } from 'nodemailer';
import type { Mailer, OutgoingMail } from '@sl-accounts/core';

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
  const timeout = options.timeoutMs ?? 10_000;
  const transport = createTransport({ url: options.url, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout });
  return {
    async send(mail: OutgoingMail & { readonly messageId: string }): Promise<void> {
      await transport.sendMail({
        from: options.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        messageId: mail.messageId,
        ...(mail.replyTo === undefined ? {} : { replyTo: mail.replyTo }),
        // Nothing in a mail is a file or URL to fetch: the text is only ever text.
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    },
    close: () => transport.close(),
  };
}
