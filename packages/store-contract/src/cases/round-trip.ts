import { expect, it } from 'vitest';
import type { ContactMessage } from '@sl-accounts/service/core';
import type { CurrentStore } from '../current-store.ts';
import { addSession, addUser, at, DAY, digest, G0, PHC } from '../fixtures.ts';

/** Exactly `n` code points (never half a surrogate pair) cut from `text` repeated. */
const codePoints = (text: string, n: number) => Array.from(text.repeat(Math.ceil(n / Array.from(text).length))).slice(0, n).join('');

/**
 * Text a store must keep exactly: no trimming, escaping, case folding or Unicode normalisation.
 * This is everything the core accepts: any well-formed text without U+0000 (the core refuses U+0000
 * and unpaired surrogates with a 400, since Postgres text cannot hold the one and rewrites the other).
 */
const TEXTS: Readonly<Record<string, string>> = {
  ascii: 'Ada Lovelace',
  quotes: `O'Brien "Bobby" \`tick\` ''`,
  backslashes: 'C:\\Users\\ada \\n \\\\ \\u0000 \\x41 \\',
  'SQL-like': "Robert'); drop table users; -- %_ $1 :name ?",
  'non-ASCII': 'Zoë Ångström · Ωμέγα · 中文 · русский · שלום · مرحبا · Straße',
  emoji: '👋 👩‍💻 🏳️‍🌈 👍🏽 🇫🇷 😀',
  'combining marks (decomposed, must not be normalised)': 'Zoe\u0308 Ame\u0301lie n\u0303 A\u030A e\u0301\u0302\u0323',
  whitespace: ' \t leading, inner  \n and trailing \r\n ',
  'invisible characters': 'zero\u200Bwidth \u200D joiner \uFEFF bom \u00A0 nbsp \u2028 separator \u00AD',
  'control characters': 'bell\u0007 backspace\u0008 escape\u001B[31m red\u001B[0m \u0001\u001F del\u007F c1\u0080\u0085\u009F',
  'bidirectional overrides': 'abc\u202Egnp.exe\u202C \u2066isolate\u2069 \u200F',
  'noncharacters and the ends of Unicode': '\uFFFE\uFFFF \uFDD0 \uFFFD replacement \u{10FFFF} \u{E0001} \u{1FFFE} \u0080 \u07FF \u0800',
  'surrogate pairs only (astral characters)': '\u{10000}\u{1D11E}\u{1F600}\u{20000}\u{10FFFD}',
};
/** 5000 code points of all of the above, the longest a contact message may be. */
const LONG = codePoints(Object.values(TEXTS).join(' | '), 5000);
const SAMPLES: ReadonlyArray<readonly [string, string]> = [...Object.entries(TEXTS), ['5000 characters', LONG]];

/** E-mails as core stores them (trimmed, lower-cased), up to core's 200 characters. */
const EMAILS: readonly string[] = [
  `o'brien+"quoted"@example.com`,
  'back\\slash@example.com',
  'zoë@exämple.com',
  'zoe\u0308@exämple.com', // the same as the one above once normalised: a store must keep both apart
  '👋.👩‍💻@emoji.example',
  `${codePoints('ü👋', 188)}@example.com`,
];

export function roundTripCases(current: CurrentStore): void {
  it('users: insert and findByEmail give back names and e-mails exactly', async () => {
    const { store, accounts } = current;
    const users = [
      ...SAMPLES.map(([label, name], i) => ({ label, name, email: `user${i}@example.com` })),
      ...EMAILS.map((email) => ({ label: email, name: 'Ada', email })),
    ];
    const ids: number[] = [];
    for (const { label, name, email } of users) {
      const user = await addUser(accounts, email, name);
      expect(user, label).toStrictEqual({ id: user.id, name, email, emailVerified: false });
      ids.push(user.id);
    }
    // Looked up after every insert, so no user can stand in for another.
    for (const [i, { label, name, email }] of users.entries()) {
      expect(await store.users.findByEmail(email), label).toStrictEqual({ id: ids[i], name, email, emailVerified: false, passwordHash: PHC, credentialGeneration: G0 });
    }
  });

  it('sessions: findWithUser gives back the user’s name and e-mail exactly', async () => {
    const { store, accounts } = current;
    // A prefix keeps the e-mails unique where the samples outnumber them.
    const pairs = SAMPLES.map(([label, name], i) => ({ label, name, email: `${i}.${EMAILS[i % EMAILS.length]!}` }));
    for (const [i, { label, name, email }] of pairs.entries()) {
      const user = await addUser(accounts, email, name);
      await addSession(accounts, user.id, i + 1, at(7 * DAY + i));
      expect(await store.sessions.findWithUser(digest(i + 1)), label).toStrictEqual({ user: { id: user.id, name, email, emailVerified: false }, expiresAt: at(7 * DAY + i) });
    }
  });

  it('contacts: every field comes back exactly, the time to the millisecond', async () => {
    const { accounts, inspect } = current;
    const IPS = ['203.0.113.7', '2001:db8::1', '::ffff:127.0.0.1', 'fe80::1%eth0'];
    const messages: ContactMessage[] = SAMPLES.map(([, text], i) => ({
      name: text,
      email: EMAILS[i % EMAILS.length]!,
      message: text,
      clientIp: IPS[i % IPS.length]!,
      userAgent: i % 5 === 4 ? null : text,
      receivedAt: at(i * 1_234_567 + 89),
    }));
    for (const message of messages) await accounts.addContact(message, null);
    const stored = await inspect.contactMessages();
    expect(stored).toHaveLength(messages.length);
    for (const [i, [label]] of SAMPLES.entries()) expect(stored[i], label).toStrictEqual(messages[i]);
  });
}
