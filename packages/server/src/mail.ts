/**
 * The mail side of the configuration: the mailer that MAIL settings choose (SMTP, or the log) and
 * how the service's outbox worker runs. The worker itself is `createService`'s.
 */
import type { Mailer } from '@sl-accounts/service/core';
import type { Logger } from '@sl-accounts/service/http';
import { logMailer, type MailOptions } from '@sl-accounts/service';
import type { MailConfig } from './config.ts';

/** Where mails go, for the start-up line: an SMTP server's host and port (never its credentials), or the log. */
export function mailSummary(config: MailConfig): string {
  if (!config.smtp) return 'log (SMTP_URL unset: mails are written here, not sent)';
  const url = URL.parse(config.smtp.url);
  return url ? `${url.protocol}//${url.host}` : 'SMTP_URL';
}

/** The domain of the From address, for Message-IDs. */
export function senderDomain(from: string): string {
  return /@([^@\s<>]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
}

/**
 * The mailer and the worker's options MAIL settings ask for. The SMTP mailer (nodemailer, ~40
 * modules) is loaded only when SMTP_URL asks for it.
 */
export async function configuredMail(
  config: MailConfig,
  logger: Logger,
  hooks: Pick<MailOptions, 'onSent' | 'onAttemptFailed' | 'onDropped'> = {},
): Promise<{ readonly mailer: Mailer; readonly mail: MailOptions; close(): void }> {
  const smtp = config.smtp ? (await import('@sl-accounts/service/mail-smtp')).createSmtpMailer({ url: config.smtp.url, from: config.from, timeoutMs: config.smtp.timeoutMs }) : undefined;
  return {
    mailer: smtp ?? logMailer(logger),
    mail: { messageIdDomain: senderDomain(config.from), pollMs: config.pollMs, leaseMs: config.leaseMs, retry: config.retry, logSent: smtp !== undefined, ...hooks },
    close: () => smtp?.close(),
  };
}
