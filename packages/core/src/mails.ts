import type { OutgoingMail } from './ports.ts';
import type { ContactMessage } from './store.ts';

/**
 * Control characters (a line break above all), and the invisible marks that reorder text on
 * screen (bidirectional embeddings, overrides and isolates, which can make a subject read as
 * something else), out of a visitor's text bound for a header. The SMTP library encodes headers, but
 * a subject built from a visitor's input should read as one line, as typed, in every mail client.
 * What a header's encoding could read into the text (an RFC 2047 encoded-word such as
 * `=?utf-8?q?…?=`) is the mailer's to neutralise, where the encoding is chosen: the text stays as
 * the visitor typed it (see `OutgoingMail.subject`).
 */
export function headerText(text: string): string {
  return text
    .replace(/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu, '')
    .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
    .trim();
}

/** The mail that tells the operator (`to`) about a contact message; replying answers the sender. */
export function contactMail(message: ContactMessage, to: string, serviceName: string): OutgoingMail {
  const name = headerText(message.name);
  return {
    kind: 'contact',
    to,
    replyTo: message.email,
    subject: `[${serviceName}] Contact message from ${name === '' ? message.email : name}`,
    text: [
      `A contact message arrived through ${serviceName}. Reply to this mail to answer the sender.`,
      '',
      `Name:     ${name}`,
      `E-mail:   ${message.email}`,
      `Received: ${message.receivedAt.toISOString()}`,
      `From IP:  ${message.clientIp}`,
      '',
      message.message,
      '',
    ].join('\n'),
  };
}
