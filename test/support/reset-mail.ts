/**
 * Tokens of the links in the mails a test server writes to its log (no SMTP_URL: the log mailer),
 * for suites that complete a reset, a verification or a change of address over HTTP. Start the
 * server with `capturingLogger()`'s logger.
 */
import { poll } from './poll.ts';

/** Reset mails ("Reset your … password"). */
const RESET = /^Reset your /;
/** Verification and change-of-address mails ("Confirm your address …", "Confirm your new address …"). */
const CONFIRM = /^Confirm your /;

/** The tokens of the links in the mails to `email` whose subject matches, in the log lines so far, oldest first. */
function linkTokens(lines: readonly string[], email: string, subject: RegExp): string[] {
  const tokens: string[] = [];
  for (const line of lines) {
    if (!line.includes('"mail"')) continue;
    const { mail } = JSON.parse(line) as { mail?: { to: string; subject: string; text: string } };
    const link = mail?.to === email && subject.test(mail.subject) ? /https?:\/\/\S+/.exec(mail.text)?.[0] : undefined;
    const token = link ? new URL(link).searchParams.get('token') : null;
    if (token) tokens.push(token);
  }
  return tokens;
}

/** The tokens of the reset mails to `email` in the log lines so far, oldest first. */
export function resetTokens(lines: readonly string[], email: string): string[] {
  return linkTokens(lines, email, RESET);
}

/** The tokens of the verification and change-of-address mails to `email` in the log lines so far, oldest first. */
export function confirmTokens(lines: readonly string[], email: string): string[] {
  return linkTokens(lines, email, CONFIRM);
}

/** Waits (10 s at most) for the reset mail to `email` after the `seen` ones, and answers its token. */
export async function nextResetToken(lines: readonly string[], email: string, seen: number): Promise<string> {
  const tokens = await poll(async () => resetTokens(lines, email), (found) => found.length > seen, 10_000);
  if (tokens.length <= seen) throw new Error(`no reset mail to ${email} within 10 s`);
  return tokens[seen]!;
}

/** Waits (10 s at most) for the verification or change mail to `email` after the `seen` ones, and answers its token. */
export async function nextConfirmToken(lines: readonly string[], email: string, seen: number): Promise<string> {
  const tokens = await poll(async () => confirmTokens(lines, email), (found) => found.length > seen, 10_000);
  if (tokens.length <= seen) throw new Error(`no verification mail to ${email} within 10 s`);
  return tokens[seen]!;
}

/** The links themselves, as the log mailer wrote them, of the mails to `email` whose subject matches, oldest first. */
export function mailedLinks(lines: readonly string[], email: string, kind: 'reset' | 'confirm'): string[] {
  const links: string[] = [];
  for (const line of lines) {
    if (!line.includes('"mail"')) continue;
    const { mail } = JSON.parse(line) as { mail?: { to: string; subject: string; text: string } };
    const link = mail?.to === email && (kind === 'reset' ? RESET : CONFIRM).test(mail.subject) ? /https?:\/\/\S+/.exec(mail.text)?.[0] : undefined;
    if (link) links.push(link);
  }
  return links;
}

/** Waits (10 s at most) for the `kind` mail to `email` after the `seen` ones, and answers its link as written. */
export async function nextMailedLink(lines: readonly string[], email: string, kind: 'reset' | 'confirm', seen = 0): Promise<string> {
  const links = await poll(async () => mailedLinks(lines, email, kind), (found) => found.length > seen, 10_000);
  if (links.length <= seen) throw new Error(`no ${kind} mail to ${email} within 10 s`);
  return links[seen]!;
}
