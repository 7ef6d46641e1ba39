/**
 * The mail side of the composition root: the mailer that MAIL settings choose (SMTP, or the log) and
 * the outbox worker that feeds it, with its log lines.
 */
import { startMailWorker, type Clock, type DroppedMail, type Mailer, type MailOutbox, type MailWorker, type QueuedMail } from '@sl-accounts/core';
import type { Logger } from '@sl-accounts/http';
import type { MailConfig } from './config.ts';

/**
 * Writes each mail to the log instead of sending it: with no SMTP server configured, a person at
 * the terminal reads the mail (a reset link included) where the server's other lines are. For
 * development only; the start-up line says so.
 */
export function logMailer(logger: Logger): Mailer {
  return {
    async send(mail) {
      logger.info({ mail: { messageId: mail.messageId, to: mail.to, ...(mail.replyTo ? { replyTo: mail.replyTo } : {}), subject: mail.subject, text: mail.text } }, 'mail');
    },
  };
}

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

export interface MailHooks {
  readonly onSent?: () => void;
  readonly onAttemptFailed?: () => void;
  /** The outbox let a mail go unsent (a bounded outbox: the memory store's). */
  readonly onDropped?: (mail: DroppedMail) => void;
}

/**
 * The mailer and the worker on `outbox`; `stop` ends both within `boundMs`. The SMTP mailer
 * (nodemailer, ~40 modules) is loaded only when SMTP_URL asks for it.
 */
export async function startMail(
  config: MailConfig,
  outbox: MailOutbox,
  clock: Clock,
  logger: Logger,
  hooks: MailHooks = {},
): Promise<{ readonly worker: MailWorker; stop(boundMs: number): Promise<void> }> {
  const smtp = config.smtp ? (await import('@sl-accounts/mail-smtp')).createSmtpMailer({ url: config.smtp.url, from: config.from, timeoutMs: config.smtp.timeoutMs }) : undefined;
  const about = (mail: QueuedMail) => ({ mailId: mail.id, attempts: mail.attempts });
  // Never the mail's text or recipient: a reset link is a secret, an address personal.
  const unsubscribe = outbox.onDropped?.((mail) => {
    hooks.onDropped?.(mail);
    logger.warn(
      { mailId: mail.id, kind: mail.kind, queuedAt: mail.createdAt.toISOString(), droppedOfKind: mail.droppedOfKind },
      `${mail.kind} mail dropped unsent: the outbox is full (the memory store keeps at most its capacity of each kind)`,
    );
  });
  const worker = startMailWorker({
    outbox,
    mailer: smtp ?? logMailer(logger),
    clock,
    messageIdDomain: senderDomain(config.from),
    pollMs: config.pollMs,
    leaseMs: config.leaseMs,
    retry: config.retry,
    onSent: (mail) => {
      hooks.onSent?.();
      if (smtp) logger.info(about(mail), 'mail sent');
    },
    onAttemptFailed: (mail, error, retryAt) => {
      hooks.onAttemptFailed?.();
      // The error's code and message: an SMTP error object also carries the conversation.
      logger.warn({ ...about(mail), retryAt: retryAt.toISOString(), ...brief(error) }, 'mail not sent; it stays in the outbox and is tried again');
    },
    onError: (error) => logger.warn(brief(error), 'mail outbox could not be read; trying again at each poll'),
    onRecovered: () => logger.info({}, 'mail outbox readable again'),
  });
  return {
    worker,
    async stop(boundMs) {
      await worker.stop(boundMs);
      unsubscribe?.();
      smtp?.close();
    },
  };
}

/** Beside the entry's own fields (not under `err`, whose serializer expects an Error and its stack). */
function brief(error: unknown): { readonly code?: unknown; readonly error: string } {
  if (!(error instanceof Error)) return { error: String(error) };
  return { code: (error as { code?: unknown }).code, error: error.message };
}
