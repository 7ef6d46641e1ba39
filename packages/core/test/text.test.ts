/**
 * Which strings the core accepts: any well-formed text without U+0000, in every field. What it
 * accepts, every store keeps exactly (the store contract's round trip); what it refuses is a 400.
 */
import { describe, expect, it } from 'vitest';
import { Pbkdf2PasswordHasher, ValidationError, createAccounts, randomTokens } from '@sl-accounts/service/core';
import { ManualClock } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

function setup() {
  const store = createMemoryStore();
  const accounts = createAccounts({ store, hasher: new Pbkdf2PasswordHasher({ iterations: 1 }), clock: new ManualClock(), tokens: randomTokens });
  return { store, accounts };
}
const meta = { clientIp: '192.0.2.1' };
const SIGNUP = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'correct horse' };
const CONTACT = { name: 'Ada', email: 'ada@example.com', message: 'Hello there, a question.' };

const BAD = {
  NUL: 'ab\u0000cd efgh',
  'a lone high surrogate': 'ab\ud800cd efgh',
  'a lone low surrogate': 'ab\udfffcd efgh',
  'surrogates in the wrong order': 'ab\udc00\ud800 efgh',
  'a lone surrogate at the end': 'abcd efgh\ud83d',
};

describe('strings the core refuses', () => {
  for (const [label, bad] of Object.entries(BAD)) {
    it(`${label}: 400 in every field of signup, login and contact, the password included`, async () => {
      const { accounts, store } = setup();
      const cases = [
        ['signup', 'name', () => accounts.signup({ ...SIGNUP, name: bad }, meta)],
        ['signup', 'password', () => accounts.signup({ ...SIGNUP, password: bad }, meta)],
        ['signup', 'email', () => accounts.signup({ ...SIGNUP, email: `a${bad}@example.com` }, meta)],
        ['login', 'password', () => accounts.login({ email: SIGNUP.email, password: bad }, meta)],
        ['login', 'email', () => accounts.login({ email: `a${bad}@example.com`, password: 'x' }, meta)],
        ['contact', 'name', () => accounts.contact({ ...CONTACT, name: bad }, meta)],
        ['contact', 'message', () => accounts.contact({ ...CONTACT, message: bad }, meta)],
        ['contact', 'email', () => accounts.contact({ ...CONTACT, email: `a${bad}@example.com` }, meta)],
      ] as const;
      for (const [operation, field, call] of cases) {
        const error = await call().catch((e: unknown) => e);
        expect(error, `${operation} ${field}`).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).issues.map((i) => i.path), `${operation} ${field}`).toContain(field);
      }
      expect(store.contacts.messages).toEqual([]);
      expect(await store.users.findByEmail(SIGNUP.email)).toBeNull();
    });
  }

  it('says what is wrong', async () => {
    const { accounts } = setup();
    const error = (await accounts.contact({ ...CONTACT, message: BAD.NUL }, meta).catch((e: unknown) => e)) as ValidationError;
    expect(error.issues).toEqual([{ path: 'message', message: 'must not contain U+0000 or unpaired surrogates' }]);
  });

  it('a password of lone surrogates no longer logs in as another one: each is refused, not rewritten', async () => {
    const { accounts } = setup();
    await accounts.signup({ ...SIGNUP, password: 'a\u{1F600}'.repeat(8) }, meta);
    for (const password of ['\ud800'.repeat(8), '\udfff'.repeat(8), '\ud83d'.repeat(8)]) {
      await expect(accounts.signup({ ...SIGNUP, email: 'x@example.com', password }, meta)).rejects.toBeInstanceOf(ValidationError);
    }
    await expect(accounts.login({ email: SIGNUP.email, password: 'a\u{1F600}'.repeat(8) }, meta)).resolves.toBeTruthy();
  });
});

describe('strings the core accepts', () => {
  it('control characters, noncharacters, U+FFFD, bidirectional controls and astral characters in a message and a password, exactly as sent; in a name all but the controls', async () => {
    const { accounts, store } = setup();
    const text = 'bell\u0007 esc\u001B[0m del\u007F c1\u0085 \uFFFE\uFFFF \uFDD0 \uFFFD \u202Eabc\u202C \u{10FFFF}\u{1F600} ';
    const name = ' Zoë \uFFFE\uFDD0\uFFFD \u200F\u{10FFFF}\u{1F600} ';
    await accounts.contact({ name, email: 'zoe@example.com', message: text }, { ...meta, userAgent: 'ua' });
    expect(store.contacts.messages[0]).toMatchObject({ name: name.trim(), message: text, email: 'zoe@example.com' });
    const { user } = await accounts.signup({ ...SIGNUP, name, password: '\u0001\uFFFF\u{1F600}\u202E-pass' }, meta);
    expect(user.name).toBe(name.trim());
    await expect(accounts.login({ email: SIGNUP.email, password: '\u0001\uFFFF\u{1F600}\u202E-pass' }, meta)).resolves.toBeTruthy();
  });

  it('a user agent the store could not hold is kept with those characters replaced, never refused', async () => {
    const { accounts, store } = setup();
    await accounts.contact(CONTACT, { ...meta, userAgent: 'agent\u0000/1 \ud800' });
    expect(store.contacts.messages[0]!.userAgent).toBe('agent\uFFFD/1 \uFFFD');
  });
});

describe('names', () => {
  const REFUSED = {
    'a line break (a header of its own in a mail)': ['Ada\r\nBcc: x@example.org', 'must not contain control characters'],
    'an escape sequence (a terminal that shows the log)': ['Ada\u001B[31mLovelace', 'must not contain control characters'],
    'a C1 control': ['Ada\u0085Lovelace', 'must not contain control characters'],
    'a tab': ['Ada\tLovelace', 'must not contain control characters'],
    'a right-to-left override': ['Ada\u202Egro.elpmaxe', 'must not contain bidirectional embedding, override or isolate characters'],
    'a left-to-right embedding': ['Ada\u202ALovelace\u202C', 'must not contain bidirectional embedding, override or isolate characters'],
    'an isolate': ['Ada\u2067Lovelace\u2069', 'must not contain bidirectional embedding, override or isolate characters'],
    'only zero-width characters': ['\u200B\u200C\u200D\u2060', 'must contain a visible character'],
    'only fillers and a byte order mark, between spaces': [' \u3164\uFEFF\u115F\u00AD ', 'must contain a visible character'],
  } as const;

  for (const [label, [name, message]] of Object.entries(REFUSED)) {
    it(`refuses ${label} in a signup, a rename and the contact form, naming the name`, async () => {
      const { accounts, store } = setup();
      const signup = (await accounts.signup({ ...SIGNUP, name }, meta).catch((e: unknown) => e)) as ValidationError;
      expect(signup).toBeInstanceOf(ValidationError);
      expect(signup.issues).toContainEqual({ path: 'name', message });
      const contact = (await accounts.contact({ ...CONTACT, name }, meta).catch((e: unknown) => e)) as ValidationError;
      expect(contact.issues).toContainEqual({ path: 'name', message });
      const { session } = await accounts.signup(SIGNUP, meta);
      const rename = (await accounts.updateProfile({ name }, { ...meta, sessionToken: session.token }).catch((e: unknown) => e)) as ValidationError;
      expect(rename.issues).toContainEqual({ path: 'name', message });
      expect((await accounts.me({ sessionToken: session.token })).name).toBe(SIGNUP.name);
      expect(store.contacts.messages).toEqual([]);
    });
  }

  it('keeps a bidirectional mark, a name in a right-to-left script, a zero-width joiner inside an emoji and an empty contact name', async () => {
    const { accounts, store } = setup();
    for (const [n, name] of ['\u05D3\u05D5\u05D3 \u200FAda', '\u0639\u0644\u064A', 'Ada \u{1F469}\u200D\u{1F4BB}'].entries()) {
      const { user } = await accounts.signup({ ...SIGNUP, email: `user${n}@example.com`, name }, meta);
      expect(user.name).toBe(name);
    }
    await accounts.contact({ ...CONTACT, name: '  ' }, meta);
    expect(store.contacts.messages[0]?.name).toBe('');
  });
});

describe('e-mail addresses', () => {
  it('refuses an address that NFKC would rewrite, such as one with U+212A KELVIN SIGN (lower-cased, it is a k): 400 naming email, nothing stored', async () => {
    const { accounts, store } = setup();
    for (const email of ['\u212Aelvin@example.com', 'ada@\uFF45xample.com', '\uFB00@example.com']) {
      const error = (await accounts.signup({ ...SIGNUP, email }, meta).catch((e: unknown) => e)) as ValidationError;
      expect(error, email).toBeInstanceOf(ValidationError);
      expect(error.issues.map((i) => i.path)).toEqual(['email']);
      expect(error.issues[0]!.message).toMatch(/NFKC/);
      await expect(accounts.requestPasswordReset({ email }, meta)).rejects.toBeInstanceOf(ValidationError);
    }
    expect(await store.users.findByEmail('kelvin@example.com')).toBeNull();
    // As before: trimmed and lower-cased.
    const { user } = await accounts.signup({ ...SIGNUP, email: '  Kelvin@Example.COM ' }, meta);
    expect(user.email).toBe('kelvin@example.com');
  });
});
