/**
 * Reset tokens from the mails a test server writes to its log (no SMTP_URL: the log mailer), for
 * suites that complete a reset over HTTP. Start the server with `capturingLogger()`'s logger.
 */
import { poll } from './poll.ts';

/** The tokens of the reset mails to `email` in the log lines so far, oldest first. */
export function resetTokens(lines: readonly string[], email: string): string[] {
  const tokens: string[] = [];
  for (const line of lines) {
    if (!line.includes('"mail"')) continue;
    const { mail } = JSON.parse(line) as { mail?: { to: string; text: string } };
    const link = mail?.to === email ? /https?:\/\/\S+/.exec(mail.text)?.[0] : undefined;
    const token = link ? new URL(link).searchParams.get('token') : null;
    if (token) tokens.push(token);
  }
  return tokens;
}

/** Waits (10 s at most) for the reset mail to `email` after the `seen` ones, and answers its token. */
export async function nextResetToken(lines: readonly string[], email: string, seen: number): Promise<string> {
  const tokens = await poll(async () => resetTokens(lines, email), (found) => found.length > seen, 10_000);
  if (tokens.length <= seen) throw new Error(`no reset mail to ${email} within 10 s`);
  return tokens[seen]!;
}
