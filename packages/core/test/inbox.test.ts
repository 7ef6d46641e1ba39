/**
 * No inbox is a target (issue 32, docs/decisions/0033-inbox-bound.md): whatever strangers do, from
 * however many client addresses, the service queues at most 8 mails an hour to one inbox (5 links
 * and notices to addresses nobody proved, 3 reset links); the mail of an account whose owner proved
 * its address is never what gives way; an account's links to an address leave room for its owner's.
 */
import { describe, expect, it } from 'vitest';
import { EmailTaken, INBOX_LIMIT, INBOX_POLICY, RateLimited, RESET_ADDRESS_LIMIT, createAccounts, countedLimits, inboxOf, randomTokens, type QueuedMail } from '@sl-accounts/core';
import { ManualClock, testHasher } from '@sl-accounts/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

const HOUR = 3_600_000;
let ip = 0;
/** A client address of its own for every request: strangers have as many as they like. */
const fresh = (sessionToken: string | null = null) => ({ clientIp: `198.51.${++ip >> 8}.${ip & 255}`, userAgent: 'Stranger/1', sessionToken });

function setup() {
  const store = createMemoryStore();
  const clock = new ManualClock();
  const accounts = createAccounts({ ...store, hasher: testHasher, clock, tokens: randomTokens }, { verifyUrl: 'https://app.example.org/verify' });
  /** Every mail queued since the last call (the outbox is claimed: each comes once). */
  const drain = async (): Promise<readonly QueuedMail[]> => {
    await accounts.settled();
    return store.outbox.claim(new Date(clock.now().getTime() + 1), { limit: 10_000, leaseMs: 100 * HOUR });
  };
  const tokenOf = (mail: QueuedMail) => new URL(/https?:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token')!;
  return { store, clock, accounts, drain, tokenOf };
}

describe('inboxOf', () => {
  it('reads a subaddress and Gmail’s dots out of the address: each spelling is one inbox', () => {
    expect(inboxOf('ada+signup@example.com')).toBe('ada@example.com');
    expect(inboxOf('ada+a+b@example.com')).toBe('ada@example.com');
    expect(inboxOf('a.d.a+x@gmail.com')).toBe('ada@gmail.com');
    expect(inboxOf('a.da@googlemail.com')).toBe('ada@gmail.com');
    // Elsewhere a dot is part of the name; a leading + is no subaddress.
    expect(inboxOf('a.da@example.com')).toBe('a.da@example.com');
    expect(inboxOf('+ada@example.com')).toBe('+ada@example.com');
  });
});

describe('an inbox strangers aim at', () => {
  it('gets at most 8 mails an hour from signups, deletions, resends, password changes, change links and resets from hundreds of client addresses, however its address is spelt', async () => {
    const { accounts, drain, clock } = setup();
    expect(INBOX_LIMIT.limit + RESET_ADDRESS_LIMIT.limit).toBe(8);
    const spellings = ['victim@example.org', 'Victim+1@example.org', ' VICTIM+news@Example.org '];
    const password = 'stranger password';
    // Signups and deletions, each from a new address: every cycle asks for a link and a notice.
    for (let cycle = 0; cycle < 30; cycle++) {
      const email = spellings[cycle % spellings.length]!;
      const { session } = await accounts.signup({ name: 'Stranger', email, password }, fresh());
      if (cycle % 5 === 0) {
        await accounts.resendVerification(fresh(session.token)).catch(() => {});
        await accounts.changePassword({ currentPassword: password, newPassword: `${password}!` }, fresh(session.token));
        await accounts.login({ email, password: `${password}!` }, fresh());
        await accounts.deleteAccount({ password: `${password}!` }, fresh(session.token));
      } else {
        await accounts.deleteAccount({ password }, fresh(session.token));
      }
    }
    // Change links to the address from accounts of their own.
    for (let n = 0; n < 10; n++) {
      const { session } = await accounts.signup({ name: 'Mover', email: `mover${n}@evil.example`, password }, fresh());
      await accounts.requestEmailChange({ newEmail: spellings[n % spellings.length]!, password }, fresh(session.token)).catch((error: unknown) => expect(error).toBeInstanceOf(RateLimited));
    }
    // An account at the address, and reset requests for it from everywhere.
    await accounts.signup({ name: 'Stranger', email: 'victim+reset@example.org', password }, fresh());
    for (let n = 0; n < 20; n++) await accounts.requestPasswordReset({ email: 'victim+reset@example.org' }, fresh()).catch((error: unknown) => expect(error).toBeInstanceOf(RateLimited));

    const toVictim = (mails: readonly QueuedMail[]) => mails.filter((m) => inboxOf(m.to) === 'victim@example.org');
    const mailed = toVictim(await drain());
    expect(mailed).toHaveLength(8);
    expect(mailed.filter((m) => m.subject.startsWith('Reset your'))).toHaveLength(3);
    // An hour on, the inbox has its share again: a bound per hour, not a ban.
    clock.advance(HOUR);
    await accounts.signup({ name: 'Stranger', email: 'victim+later@example.org', password }, fresh());
    expect(toVictim(await drain()).map((m) => m.subject)).toEqual(['Confirm your address for sl-accounts']);
  });

  it('a signup past the inbox’s share is the same 201 without the mail; the account can ask for its link once the hour is over', async () => {
    const { accounts, drain, clock, tokenOf } = setup();
    for (let n = 0; n < INBOX_LIMIT.limit; n++) await accounts.signup({ name: 'Stranger', email: `ada+${n}@example.com`, password: 'stranger password' }, fresh());
    expect(await drain()).toHaveLength(INBOX_LIMIT.limit);
    const owner = await accounts.signup({ name: 'Ada', email: 'ada@example.com', password: 'correct horse' }, fresh());
    expect(owner.user).toMatchObject({ email: 'ada@example.com', emailVerified: false });
    expect(await drain()).toEqual([]);
    // A new link is refused while the inbox is full, and the account's own limit is not spent by it.
    const refused = (await accounts.resendVerification(fresh(owner.session.token)).catch((e: unknown) => e)) as RateLimited;
    expect(refused).toBeInstanceOf(RateLimited);
    expect(refused.rateLimit).toMatchObject({ policy: INBOX_POLICY, remaining: 0 });
    expect(countedLimits(refused).find((l) => l.policy === 'email-link-account')).toMatchObject({ remaining: 3 });
    clock.advance(HOUR);
    const resent = await accounts.resendVerification(fresh(owner.session.token));
    expect(resent.limits.find((l) => l.policy === 'email-link-account')).toMatchObject({ remaining: 2 });
    // The inbox's own count is in no successful answer: it would tell how much mail the address had.
    expect(resent.limits.map((l) => l.policy)).not.toContain(INBOX_POLICY);
    const [link] = await drain();
    expect((await accounts.confirmEmail({ token: tokenOf(link!) }, fresh())).user.emailVerified).toBe(true);
  });

  it('a signup to a taken address spends nothing of its inbox’s share', async () => {
    const { accounts, drain } = setup();
    const owner = await accounts.signup({ name: 'Ada', email: 'ada@example.com', password: 'correct horse' }, fresh());
    for (let n = 0; n < 20; n++) await expect(accounts.signup({ name: 'Stranger', email: 'ada@example.com', password: 'stranger password' }, fresh())).rejects.toBeInstanceOf(EmailTaken);
    await drain();
    // The owner (whose address is not verified yet) still has the rest of the share for their own notices.
    for (let n = 0; n < INBOX_LIMIT.limit - 1; n++) {
      await accounts.changePassword({ currentPassword: n === 0 ? 'correct horse' : `password ${n}`, newPassword: `password ${n + 1}` }, fresh(owner.session.token));
    }
    expect((await drain()).map((m) => [m.subject, m.kind])).toEqual(Array(INBOX_LIMIT.limit - 1).fill(['[sl-accounts] Your password was changed', 'unverified']));
  });
});

describe('the owner’s mail', () => {
  it('of an account whose owner verified it before the attack is never refused or counted: notices and links arrive while strangers spend the inbox’s share and its reset requests', async () => {
    const { accounts, drain, tokenOf } = setup();
    const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse' };
    const owner = await accounts.signup(ADA, fresh());
    await accounts.confirmEmail({ token: tokenOf((await drain())[0]!) }, fresh());
    // The attack: signups at every spelling of the inbox, change links to it, resets for it.
    for (let n = 0; n < 20; n++) await accounts.signup({ name: 'Stranger', email: `ada+${n}@example.com`, password: 'stranger password' }, fresh());
    for (let n = 0; n < 3; n++) {
      const { session } = await accounts.signup({ name: 'Mover', email: `mover${n}@evil.example`, password: 'stranger password' }, fresh());
      await expect(accounts.requestEmailChange({ newEmail: ADA.email, password: 'stranger password' }, fresh(session.token))).rejects.toBeInstanceOf(EmailTaken);
    }
    for (let n = 0; n < 10; n++) await accounts.requestPasswordReset({ email: ADA.email }, fresh()).catch(() => {});
    // The share less the owner's own verification link of before.
    const attack = (await drain()).filter((m) => inboxOf(m.to) === ADA.email);
    expect(attack.map((m) => m.kind).sort()).toEqual([...Array(RESET_ADDRESS_LIMIT.limit).fill('security'), ...Array(INBOX_LIMIT.limit - 1).fill('unverified')]);
    // The reset links strangers asked for are the owner's to use: the newest works.
    const newest = attack.filter((m) => m.subject.startsWith('Reset your')).at(-1)!;
    await accounts.confirmPasswordReset({ token: tokenOf(newest), newPassword: 'the owner chose this' }, fresh());
    ADA.password = 'the owner chose this';
    const { session } = await accounts.login(ADA, fresh());
    await accounts.changePassword({ currentPassword: ADA.password, newPassword: 'and then this one' }, fresh(session.token));
    await accounts.requestEmailChange({ newEmail: 'lovelace@example.org', password: 'and then this one' }, fresh(session.token));
    const own = await drain();
    expect(own.map((m) => [m.to, m.subject, m.kind]).sort()).toEqual([
      [ADA.email, '[sl-accounts] A change of your address was requested', 'security'],
      [ADA.email, '[sl-accounts] New sign-in to your account', 'security'],
      [ADA.email, '[sl-accounts] Your password was changed', 'security'],
      [ADA.email, '[sl-accounts] Your password was reset', 'security'],
      ['lovelace@example.org', 'Confirm your new address for sl-accounts', 'unverified'],
    ]);
    expect(owner.user.id).toBe((await accounts.me({ sessionToken: session.token })).id);
  });
});

describe('a change of address to an address others asked links to', () => {
  it('is accepted while the inbox has room: another account’s 3 links leave room for the owner’s, whose own limit counts it once', async () => {
    const { accounts, drain } = setup();
    const password = 'a passphrase';
    const attacker = await accounts.signup({ name: 'Max', email: 'max@evil.example', password }, fresh());
    for (let n = 0; n < 3; n++) await accounts.requestEmailChange({ newEmail: 'x@example.org', password }, fresh(attacker.session.token));
    await expect(accounts.requestEmailChange({ newEmail: 'x@example.org', password }, fresh(attacker.session.token))).rejects.toBeInstanceOf(RateLimited);
    const owner = await accounts.signup({ name: 'Ada', email: 'ada@example.com', password }, fresh());
    await drain();
    const asked = await accounts.requestEmailChange({ newEmail: 'x@example.org', password }, fresh(owner.session.token));
    expect(asked.limits.find((l) => l.policy === 'email-link-account')).toMatchObject({ remaining: 2 });
    expect((await drain()).filter((m) => m.to === 'x@example.org').map((m) => m.subject)).toEqual(['Confirm your new address for sl-accounts']);
  });

  it('refused once strangers used the whole share, with the inbox policy and its wait; the refusal spends nothing of the owner’s, whose next request an hour later goes', async () => {
    const { accounts, drain, clock } = setup();
    const password = 'a passphrase';
    for (const n of [1, 2]) {
      const attacker = await accounts.signup({ name: 'Max', email: `max${n}@evil.example`, password }, fresh());
      for (let i = 0; i < 3; i++) await accounts.requestEmailChange({ newEmail: 'x@example.org', password }, fresh(attacker.session.token)).catch(() => {});
    }
    const owner = await accounts.signup({ name: 'Ada', email: 'ada@example.com', password }, fresh());
    await drain();
    const refused = (await accounts.requestEmailChange({ newEmail: 'x@example.org', password }, fresh(owner.session.token)).catch((e: unknown) => e)) as RateLimited;
    expect(refused).toBeInstanceOf(RateLimited);
    expect(refused.rateLimit).toMatchObject({ policy: INBOX_POLICY, remaining: 0 });
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(3600);
    expect(countedLimits(refused).map((l) => [l.policy, l.remaining])).toEqual([
      ['email-link-account', 3],
      ['session-password', 20],
      [INBOX_POLICY, 0],
    ]);
    expect(await drain()).toEqual([]);
    clock.advance(HOUR);
    const asked = await accounts.requestEmailChange({ newEmail: 'x@example.org', password }, fresh(owner.session.token));
    expect(asked.limits.find((l) => l.policy === 'email-link-account')).toMatchObject({ remaining: 2 });
    expect((await drain()).filter((m) => m.to === 'x@example.org')).toHaveLength(1);
  });
});
