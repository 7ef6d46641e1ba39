/** The core's `Mailer` port over SMTP, with nodemailer. */
export {
  /** A mailer that sends through an SMTP server (`smtp://` with STARTTLS, or `smtps://`). */
  createSmtpMailer,
  /** What `createSmtpMailer` answers: the `Mailer` port and `close()`. */
  type SmtpMailer,
  /** `createSmtpMailer`'s options: the server URL, the From address, the bound on each step. */
  type SmtpMailerOptions,
} from './smtp-mailer.ts';
