import type { Clock, MailOutbox, Mailer, QueuedMail } from './ports.ts';

/** When a failed attempt is tried again: doubling from `baseMs`, never more than `maxMs` apart. */
export interface RetrySchedule {
  readonly baseMs: number;
  readonly maxMs: number;
}

/**
 * 5 s, 10 s, 20 s … then every 10 minutes: a blip in the SMTP server costs seconds; an outage of
 * hours costs at most ten minutes after its end, and a few attempts an hour per mail meanwhile.
 */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { baseMs: 5_000, maxMs: 600_000 };

/**
 * How long a claim holds a mail. Longer than a send may take (the SMTP mailer bounds each stage of
 * one at 10 s), so a live worker never loses the mail it is sending to another; short enough that
 * a worker that died holds its mail up for two minutes at most.
 */
export const DEFAULT_MAIL_LEASE_MS = 120_000;

/** How often the outbox is looked at; a mail queued in between waits at most this long. */
export const DEFAULT_MAIL_POLL_MS = 1_000;

/** The delay before the attempt after attempt number `attempts` (1-based) failed. */
export function retryDelayMs(attempts: number, schedule: RetrySchedule = DEFAULT_RETRY_SCHEDULE): number {
  // 2 ** 30 already exceeds any sane maxMs; the cap keeps the power finite.
  return Math.min(schedule.maxMs, schedule.baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
}

/** `startMailWorker`'s options. */
export interface MailWorkerOptions {
  readonly outbox: MailOutbox;
  readonly mailer: Mailer;
  readonly clock: Clock;
  /** The right-hand side of every Message-ID (`<id@domain>`): the sender's domain. */
  readonly messageIdDomain: string;
  readonly pollMs?: number;
  readonly leaseMs?: number;
  readonly retry?: RetrySchedule;
  /** A mail went out. */
  readonly onSent?: (mail: QueuedMail) => void;
  /** An attempt failed; the mail is tried again at `retryAt`. */
  readonly onAttemptFailed?: (mail: QueuedMail, error: unknown, retryAt: Date) => void;
  /**
   * The outbox itself failed (the store does not answer): the worker tries again at each poll. Called
   * for the first failure of each outage only, so a database that is down for an hour costs one line.
   */
  readonly onError?: (error: unknown) => void;
  /** The outbox answers again after a failure that `onError` reported. */
  readonly onRecovered?: () => void;
}

/** The running worker. */
export interface MailWorker {
  /**
   * Claims nothing more and waits for the send in flight, at most `boundMs`. A send still running
   * then is left to its lease: the mail goes again later, with the same Message-ID.
   */
  stop(boundMs: number): Promise<void>;
  /**
   * Sends what is due now, without waiting for the next poll, and resolves when the outbox has
   * nothing due left (or a send failed and waits for its retry): a round already under way is
   * awaited first, since it may have looked before the latest mail was queued. For tests (an
   * embedder's `request` awaits it through `api.settled`); nothing after `stop`.
   */
  flush(): Promise<void>;
}

/** The Message-ID of every attempt at one outbox entry. */
export function messageIdOf(id: string, domain: string): string {
  return `<${id}@${domain}>`;
}

/**
 * Sends what the outbox holds, one mail at a time: claim one, send it, mark it sent, or schedule
 * its retry; then the next, until none is due. A failed send ends the round, so while the SMTP
 * server is down the worker makes one attempt per poll, not one per queued mail. Several workers
 * (in several processes) may share one outbox: a claim holds a mail for one of them.
 */
export function startMailWorker(options: MailWorkerOptions): MailWorker {
  const { outbox, mailer, clock } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_MAIL_LEASE_MS;
  const retry = options.retry ?? DEFAULT_RETRY_SCHEDULE;
  let stopping = false;
  let running: Promise<void> | null = null;
  let failing = false;

  async function claimOne(): Promise<QueuedMail | undefined> {
    try {
      const [mail] = await outbox.claim(clock.now(), { limit: 1, leaseMs });
      if (failing) {
        failing = false;
        options.onRecovered?.();
      }
      return mail;
    } catch (error) {
      if (!failing) options.onError?.(error);
      failing = true;
      return undefined;
    }
  }

  async function sendOne(): Promise<boolean> {
    const mail = await claimOne();
    if (!mail) return false;
    const { id, attempts, createdAt: _createdAt, ...outgoing } = mail;
    try {
      await mailer.send({ ...outgoing, messageId: messageIdOf(id, options.messageIdDomain) });
    } catch (error) {
      const retryAt = new Date(clock.now().getTime() + retryDelayMs(attempts, retry));
      options.onAttemptFailed?.(mail, error, retryAt);
      await outbox.retryLater(id, attempts, retryAt, describe(error));
      return false;
    }
    // Sent: if this write fails, the lease runs out and the mail goes again, with the same Message-ID.
    await outbox.markSent(id);
    options.onSent?.(mail);
    return true;
  }

  /** One round: mails until none is due or a send fails. A poll that comes during a round is dropped. */
  function round(): void {
    if (stopping || running) return;
    running = (async () => {
      while (!stopping && (await sendOne())) {
        // the next one
      }
    })()
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = null;
      });
  }

  const timer = setInterval(round, options.pollMs ?? DEFAULT_MAIL_POLL_MS);
  timer.unref();
  round();
  return {
    async flush() {
      await running;
      if (stopping) return;
      // A poll that started meanwhile is the round to wait for; else this one.
      round();
      await running;
    },
    async stop(boundMs) {
      stopping = true;
      clearInterval(timer);
      if (!running) return;
      let bound: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([running, new Promise<void>((resolve) => (bound = setTimeout(resolve, boundMs)))]);
      clearTimeout(bound);
    },
  };
}

/** An error's code and message, never more: an SMTP error may carry the whole conversation. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
}
