/**
 * The outbox's worker and its default mailer: mails the store queued (contact messages for the
 * operator, reset links) are claimed and handed to a `Mailer`, with retries, exactly once per id.
 */
import {
  MAIL_KINDS,
  startMailWorker,
  type Clock,
  type DroppedMail,
  type MailKind,
  type Mailer,
  type MailOutbox,
  type MailWorkerOptions,
  type QueuedMail,
} from '@sl-accounts/service/core';
import type { Logger } from '@sl-accounts/service/http';

/** How the outbox worker sends (see `startMailWorker` of the core); each has the core's default. */
export interface MailOptions extends Partial<Pick<MailWorkerOptions, 'pollMs' | 'leaseMs' | 'retry'>> {
  /** The right-hand side of every Message-ID (`<id@domain>`): the sender's domain; default `localhost`. */
  readonly messageIdDomain?: string;
  /** A mail went out (a metric). */
  readonly onSent?: () => void;
  /** An attempt failed and the mail waits for its retry (a metric). */
  readonly onAttemptFailed?: () => void;
  /**
   * The outbox let a mail go unsent (a bounded outbox: the memory store's; a metric), once per mail.
   * The log has a summary at warn: at most one line per `droppedLogIntervalMs`.
   */
  readonly onDropped?: (mail: DroppedMail) => void;
  /** At most one warn line per this many milliseconds sums up the mails dropped meanwhile; default DROPPED_MAIL_LOG_INTERVAL_MS. */
  readonly droppedLogIntervalMs?: number;
  /** Whether each sent mail gets an info line (`mail sent`); default false (the log mailer logs the mail itself). */
  readonly logSent?: boolean;
}

/**
 * Writes each mail to the log instead of sending it: with no SMTP server configured, a person at
 * the terminal reads the mail (a reset link included) where the server's other lines are. For
 * development only.
 */
export function logMailer(logger: Logger): Mailer {
  return {
    async send(mail) {
      logger.info({ mail: { messageId: mail.messageId, to: mail.to, ...(mail.replyTo ? { replyTo: mail.replyTo } : {}), subject: mail.subject, text: mail.text } }, 'mail');
    },
  };
}

/**
 * The mailer of a service given none: no mail is sent, and the service says so once, loudly, as it
 * is created; each mail goes to `logger` at info, or with no logger to standard error, where a person at
 * the terminal reads it (a link included). Never a silent sink: an embedder who forgot the mailer
 * sees every mail it would have lost.
 */
export function defaultMailer(logger: Logger | undefined): Mailer {
  const advice = 'pass createService a mailer (createSmtpMailer({ url, from }) of @sl-accounts/service/mail-smtp)';
  if (logger) {
    logger.warn({}, `no mailer: mails are not sent but written to this log; ${advice}`);
    return logMailer(logger);
  }
  process.stderr.write(`sl-accounts: no mailer and no logger given to createService: mails are not sent but written here (standard error); ${advice}\n`);
  return {
    async send(mail) {
      const head = [`To: ${mail.to}`, ...(mail.replyTo ? [`Reply-To: ${mail.replyTo}`] : []), `Subject: ${mail.subject}`, `Message-ID: ${mail.messageId}`];
      process.stderr.write(`sl-accounts: mail (not sent: no mailer)\n${[...head, '', mail.text].map((line) => `  ${line}`).join('\n')}\n`);
    },
  };
}

/**
 * How often, at most, the log sums up the mails a full outbox dropped. A flood drops one mail per
 * request it makes; a line each was ~300 bytes of log per request (found on 2026-11-28).
 */
export const DROPPED_MAIL_LOG_INTERVAL_MS = 60_000;

/**
 * Logs the mails `outbox` drops: the first at once, then at most one line per `intervalMs`, each with
 * the count per kind since the line before and so far. Never a mail's text or recipient: a reset
 * link is a secret, an address personal. `flush` writes what is pending (at stop).
 */
function droppedMailLog(logger: Logger, intervalMs: number): { add(mail: DroppedMail): void; flush(): void } {
  const zero = (): Record<MailKind, number> => Object.fromEntries(MAIL_KINDS.map((kind) => [kind, 0])) as Record<MailKind, number>;
  let dropped = zero();
  const soFar = zero();
  let pending = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastLine = -Infinity;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending === 0) return;
    lastLine = performance.now();
    logger.warn(
      { dropped, droppedSoFar: { ...soFar } },
      `${pending} mail${pending === 1 ? '' : 's'} dropped unsent: the outbox is full (the memory store keeps at most its capacity of each kind); at most one such line per ${Math.ceil(intervalMs / 1000)} s`,
    );
    dropped = zero();
    pending = 0;
  };
  return {
    add(mail) {
      dropped[mail.kind]++;
      soFar[mail.kind] = mail.droppedOfKind;
      pending++;
      if (timer) return;
      timer = setTimeout(flush, Math.max(0, lastLine + intervalMs - performance.now()));
      timer.unref();
    },
    flush,
  };
}

/** The worker on `outbox`, feeding `mailer`, with its log lines; `stop` ends it within `boundMs`. */
export function startMail(outbox: MailOutbox, mailer: Mailer, clock: Clock, logger: Logger, options: MailOptions = {}): { stop(boundMs: number): Promise<void>; flush(): Promise<void> } {
  const about = (mail: QueuedMail) => ({ mailId: mail.id, attempts: mail.attempts });
  const droppedLog = droppedMailLog(logger, options.droppedLogIntervalMs ?? DROPPED_MAIL_LOG_INTERVAL_MS);
  const unsubscribe = outbox.onDropped?.((mail) => {
    options.onDropped?.(mail);
    droppedLog.add(mail);
  });
  const worker = startMailWorker({
    outbox,
    mailer,
    clock,
    messageIdDomain: options.messageIdDomain ?? 'localhost',
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    onSent: (mail) => {
      options.onSent?.();
      if (options.logSent) logger.info(about(mail), 'mail sent');
    },
    onAttemptFailed: (mail, error, retryAt) => {
      options.onAttemptFailed?.();
      // The error's code and message: an SMTP error object also carries the conversation.
      logger.warn({ ...about(mail), retryAt: retryAt.toISOString(), ...brief(error) }, 'mail not sent; it stays in the outbox and is tried again');
    },
    onError: (error) => logger.warn(brief(error), 'mail outbox could not be read; trying again at each poll'),
    onRecovered: () => logger.info({}, 'mail outbox readable again'),
  });
  return {
    flush: () => worker.flush(),
    async stop(boundMs) {
      await worker.stop(boundMs);
      unsubscribe?.();
      droppedLog.flush();
    },
  };
}

/** Beside the entry's own fields (not under `err`, whose serializer expects an Error and its stack). */
function brief(error: unknown): { readonly code?: unknown; readonly error: string } {
  if (!(error instanceof Error)) return { error: String(error) };
  return { code: (error as { code?: unknown }).code, error: error.message };
}
