import type { ContactMessage, OutgoingMail } from './ports.ts';

/**
 * Control characters (a line break above all) out of a header value: the SMTP library encodes
 * headers, but a subject built from a visitor's input should read as one line in every mail client.
 */
function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();
}

/** The mail that tells the operator (`to`) about a contact message; replying answers the sender. */
export function contactMail(message: ContactMessage, to: string, serviceName: string): OutgoingMail {
  const name = oneLine(message.name);
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
