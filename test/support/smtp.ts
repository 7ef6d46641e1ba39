/**
 * A real SMTP server in the test process (the `smtp-server` package) that keeps every mail it
 * accepts, parsed (mailparser). `down()` closes its port, so clients meet a refused connection as
 * they would a server that is gone; `up()` opens the same port again.
 */
import { createServer } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  readonly parsed: ParsedMail;
  /** The envelope's recipients, as the client gave them to RCPT TO. */
  readonly rcptTo: readonly string[];
  readonly mailFrom: string | null;
}

export interface TestSmtp {
  readonly port: number;
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  readonly url: string;
  /** Every mail accepted, in order. */
  readonly received: ReceivedMail[];
  /** Whether the port is open. */
  readonly isUp: boolean;
  /** Holds each mail's final answer until `release()` (a slow server, for the stop tests). */
  hold(): void;
  release(): void;
  /** How many mails are being held (received, not yet answered). */
  readonly heldCount: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** A port nobody listens on now (the OS's next free one), for a server that is down from the start. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Starts the server on a free port; `{ up: false }` picks the port but leaves it closed. */
export async function startTestSmtp(options: { readonly up?: boolean } = {}): Promise<TestSmtp> {
  const port = await freePort();
  const received: ReceivedMail[] = [];
  let held: (() => void)[] | null = null;
  let server: SMTPServer | null = null;

  const open = async () => {
    const smtp = new SMTPServer({
      authOptional: true,
      // The test client speaks plain SMTP on loopback; a STARTTLS offer would make it demand a certificate.
      disabledCommands: ['STARTTLS'],
      // A closed server must let go of its port at once, or `up()` could not take it again.
      closeTimeout: 100,
      logger: false,
      onData(stream, session, callback) {
        simpleParser(stream).then(
          (parsed) => {
            const finish = () => {
              received.push({
                parsed,
                rcptTo: session.envelope.rcptTo.map((r) => r.address),
                mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
              });
              callback();
            };
            if (held) held.push(finish);
            else finish();
          },
          (error: Error) => callback(error),
        );
      },
    });
    await new Promise<void>((resolve, reject) => {
      smtp.server.once('error', reject);
      smtp.listen(port, '127.0.0.1', () => resolve());
    });
    server = smtp;
  };
  const shut = async () => {
    const smtp = server;
    server = null;
    if (smtp) await new Promise<void>((resolve) => smtp.close(() => resolve()));
  };

  if (options.up !== false) await open();
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    get isUp() {
      return server !== null;
    },
    get heldCount() {
      return held?.length ?? 0;
    },
    hold: () => void (held ??= []),
    release: () => {
      const waiting = held ?? [];
      held = null;
      for (const finish of waiting) finish();
    },
    up: async () => {
      if (!server) await open();
    },
    down: shut,
    close: shut,
  };
}

/** The Message-ID headers of the received mails. */
export function messageIds(received: readonly ReceivedMail[]): string[] {
  return received.map((m) => m.parsed.messageId ?? '(none)');
}

/** Server settings for mail tests: fast polls and retries, so a test waits milliseconds where production waits seconds. */
export const FAST_MAIL = { MAIL_POLL_MS: '20', MAIL_RETRY_BASE_MS: '50', MAIL_RETRY_MAX_MS: '200', SMTP_TIMEOUT_MS: '2000' } as const;

/** What follows `label` on the first line of a received mail's text that starts with it, trimmed. */
export function mailField(mail: ReceivedMail, label: string): string | undefined {
  return (mail.parsed.text ?? '')
    .split('\n')
    .find((line) => line.startsWith(label))
    ?.slice(label.length)
    .trim();
}
