/**
 * No inbox is a target (issue 32, docs/decisions/0033-inbox-bound.md): whatever strangers do, from
 * however many client addresses, the service queues at most 8 mails in any hour to one inbox (4 links
 * and notices to addresses nobody proved, 4 reset links: 2 in any 30 minutes); the mail of an account whose owner proved
 * its address is never what gives way; an account's links to an address leave room for its owner's.
 */
import { describe, expect, it } from 'vitest';
import { EmailTaken, INBOX_LIMIT, createAdmin, INBOX_POLICY, RateLimited, RESET_ADDRESS_LIMIT, RESET_ADDRESS_POLICY, RESET_TOKEN_TTL_MS, createAccounts, countedLimits, inboxOf, randomTokens, slotBudget, type QueuedMail, type RateLimiter } from '@sl-accounts/service/core';
import { ManualClock, signedInAtOnce, testHasher } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';

const HOUR = 3_600_000;
let ip = 0;
/** A client address of its own for every request: strangers have as many as they like. */
const fresh = (sessionToken: string | null = null) => ({ clientIp: `198.51.${++ip >> 8}.${ip & 255}`, userAgent: 'Stranger/1', sessionToken });

function setup() {
  const store = createMemoryStore();
  const clock = new ManualClock();
  const accounts = createAccounts({ store, hasher: testHasher, clock, tokens: randomTokens }, { verifyUrl: 'https://app.example.org/verify' });
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
  it('gets at most 8 mails in any hour from signups, deletions, resends, password changes, change links and resets from hundreds of client addresses, however its address is spelt', async () => {
    const { accounts, drain, clock } = setup();
    const perHour = (rule: { limit: number; windowMs: number }) => rule.limit * (HOUR / rule.windowMs);
    expect(perHour(INBOX_LIMIT) + perHour(RESET_ADDRESS_LIMIT)).toBe(8);
    const spellings = ['victim@example.org', 'Victim+1@example.org', ' VICTIM+news@Example.org '];
    const password = 'stranger password';
    let round = 0;
    /** Everything strangers can do to the inbox, from a new client address each time. */
    async function attack() {
      round++;
      // Signups and deletions: every cycle asks for a link and a notice.
      for (let cycle = 0; cycle < 30; cycle++) {
        const email = spellings[cycle % spellings.length]!;
        const { session } = await accounts.signup({ name: 'Stranger', email, password }, fresh());
        if (cycle % 5 === 0) {
          await accounts.resendVerification(fresh(session.token)).catch(() => {});
          await accounts.changePassword({ currentPassword: password, newPassword: `${password}!` }, fresh(session.token));
          signedInAtOnce(await accounts.login({ email, password: `${password}!` }, fresh()));
          await accounts.deleteAccount({ password: `${password}!` }, fresh(session.token));
        } else {
          await accounts.deleteAccount({ password }, fresh(session.token));
        }
      }
      // Change links to the address from accounts of their own.
      for (let n = 0; n < 10; n++) {
        const { session } = await accounts.signup({ name: 'Mover', email: `mover${round}.${n}@evil.example`, password }, fresh());
        await accounts.requestEmailChange({ newEmail: spellings[n % spellings.length]!, password }, fresh(session.token)).catch((error: unknown) => expect(error).toBeInstanceOf(RateLimited));
      }
      // An account at the address, and reset requests for it from everywhere.
      const reset = `victim+reset${round}@example.org`;
      await accounts.signup({ name: 'Stranger', email: reset, password }, fresh()).catch((error: unknown) => expect(error).toBeInstanceOf(EmailTaken));
      for (let n = 0; n < 20; n++) await accounts.requestPasswordReset({ email: reset }, fresh()).catch((error: unknown) => expect(error).toBeInstanceOf(RateLimited));
      // ... and for the inbox's own spelling, which keeps the last slot (reservedForPlainSpelling).
      const plain = await accounts.signup({ name: 'Stranger', email: spellings[0]!, password }, fresh());
      for (let n = 0; n < 20; n++) await accounts.requestPasswordReset({ email: spellings[0]! }, fresh()).catch((error: unknown) => expect(error).toBeInstanceOf(RateLimited));
      await accounts.settled();
      // Gone again, so the next round's signups find the address free.
      await accounts.deleteAccount({ password }, fresh(plain.session.token));
    }
    const toVictim = (mails: readonly QueuedMail[]) => mails.filter((m) => inboxOf(m.to) === 'victim@example.org');
    const resets = (mails: readonly QueuedMail[]) => mails.filter((m) => m.subject.startsWith('Reset your'));

    // At the start of the hour, half an hour in and at its last minute: a fixed window of 8 would have
    // let 8 more through at its edge; the bound holds over any hour, wherever it starts.
    await attack();
    const first = toVictim(await drain());
    expect([first.length, resets(first).length]).toEqual([6, 2]);
    clock.advance(HOUR / 2);
    await attack();
    const second = toVictim(await drain());
    expect(second.map((m) => m.subject.slice(0, 10))).toEqual(['Reset your', 'Reset your']);
    clock.advance(HOUR / 2 - 60_000);
    await attack();
    expect(toVictim(await drain())).toEqual([]);
    // An hour after the first mails, the inbox has its share again: a bound per hour, not a ban.
    clock.advance(60_000);
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
    expect((await accounts.confirmEmail({ token: tokenOf(link!) }, fresh(owner.session.token))).user.emailVerified).toBe(true);
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
    await accounts.confirmEmail({ token: tokenOf((await drain())[0]!) }, fresh(owner.session.token));
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
    const { session } = signedInAtOnce(await accounts.login(ADA, fresh()));
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

describe('a reset the owner asks for while strangers ask for the same address', () => {
  it('is refused only while a link mailed in the last 30 minutes is in the inbox, and that link works', async () => {
    const { accounts, drain, clock, tokenOf } = setup();
    const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse' };
    await accounts.signup(ADA, fresh());
    await drain();
    // Strangers fill the address's reset slots as late as they can: one now, one 29 minutes on.
    await accounts.requestPasswordReset({ email: ADA.email }, fresh());
    clock.advance(29 * 60_000);
    await accounts.requestPasswordReset({ email: ' ADA@example.com' }, fresh());
    const mailed = await drain();
    expect(mailed.map((m) => m.subject.slice(0, 10))).toEqual(['Reset your', 'Reset your']);
    // The owner asks at the last moment the slots are full: refused, with the wait until one frees.
    clock.advance(60_000 - 1);
    const refused = (await accounts.requestPasswordReset({ email: ADA.email }, fresh()).catch((e: unknown) => e)) as RateLimited;
    expect(refused).toBeInstanceOf(RateLimited);
    expect(refused.rateLimit).toMatchObject({ policy: RESET_ADDRESS_POLICY, remaining: 0, resetSeconds: 1 });
    // ... and the newest link strangers caused is the owner's to use, still alive.
    await accounts.confirmPasswordReset({ token: tokenOf(mailed.at(-1)!), newPassword: 'the owner chose this' }, fresh());
    await expect(accounts.login({ email: ADA.email, password: 'the owner chose this' }, fresh())).resolves.toBeDefined();
    // The first slot freed 30 minutes after its mail: the owner's next request goes.
    clock.advance(1);
    await accounts.requestPasswordReset({ email: ADA.email }, fresh());
    expect((await drain()).filter((m) => m.to === ADA.email && m.subject.startsWith('Reset your'))).toHaveLength(1);
  });

  it('gets its link while strangers ask for other spellings of the inbox (unregistered ones mail nothing)', async () => {
    const { accounts, drain, clock, tokenOf } = setup();
    const ADA = { name: 'Ada', email: 'ada@example.com', password: 'correct horse' };
    await accounts.signup(ADA, fresh());
    await drain();
    for (let halfHour = 0; halfHour < 4; halfHour++) {
      // Two requests for spellings nobody registered, every 30 minutes, before the owner asks.
      for (const spelling of ['ada+a@example.com', 'ada+b@example.com']) await accounts.requestPasswordReset({ email: spelling }, fresh()).catch((e: unknown) => expect(e).toBeInstanceOf(RateLimited));
      await accounts.requestPasswordReset({ email: ADA.email }, fresh());
      const links = (await drain()).filter((m) => m.to === ADA.email && m.subject.startsWith('Reset your'));
      expect(links, `half hour ${halfHour}`).toHaveLength(1);
      // A second request of the owner's in the span is refused: the link just mailed is in the inbox, and works.
      await expect(accounts.requestPasswordReset({ email: ADA.email }, fresh())).rejects.toBeInstanceOf(RateLimited);
      if (halfHour === 3) await accounts.confirmPasswordReset({ token: tokenOf(links[0]!), newPassword: 'the owner chose this' }, fresh());
      clock.advance(30 * 60_000);
    }
    await expect(accounts.login({ email: ADA.email, password: 'the owner chose this' }, fresh())).resolves.toBeDefined();
  });

  it('the operator’s reset is not held back by strangers’ requests: Gmail’s dotted spellings fill every public slot, the operator’s link still goes', async () => {
    const { accounts, drain, clock, store } = setup();
    const owner = await accounts.signup({ name: 'Gem', email: 'gemowner@gmail.com', password: 'correct horse' }, fresh());
    await drain();
    const admin = createAdmin({ store, hasher: testHasher, clock, tokens: randomTokens }, { verifyUrl: 'https://app.example.org/verify' });
    for (const spelling of ['g.emowner@gmail.com', 'gem.owner@googlemail.com']) await accounts.requestPasswordReset({ email: spelling }, fresh());
    // The public slots are the strangers' now (dotted spellings all count as plain: ADR 33).
    await expect(accounts.requestPasswordReset({ email: 'gemowner@gmail.com' }, fresh())).rejects.toBeInstanceOf(RateLimited);
    await admin.sendPasswordReset(owner.user.id, { reason: 'asked by phone' }, { operator: 'ops' });
    expect((await drain()).filter((m) => m.to === 'gemowner@gmail.com' && m.subject.startsWith('Reset your'))).toHaveLength(1);
  });

  it('finds a working link in the inbox whenever it is refused, while strangers ask for resets every minute for two hours', async () => {
    const { accounts, drain, clock } = setup();
    await accounts.signup({ name: 'Ada', email: 'ada@example.com', password: 'correct horse' }, fresh());
    await drain();
    let newestLinkAt = -Infinity;
    const refusedWithoutLink: number[] = [];
    for (let minute = 0; minute < 120; minute++) {
      for (let n = 0; n < 5; n++) await accounts.requestPasswordReset({ email: 'ada@example.com' }, fresh()).catch(() => {});
      if ((await drain()).length > 0) newestLinkAt = clock.now().getTime();
      const owner = await accounts.requestPasswordReset({ email: 'ada@example.com' }, fresh()).catch((e: unknown) => e);
      if (owner instanceof RateLimited && clock.now().getTime() - newestLinkAt >= RESET_TOKEN_TTL_MS) refusedWithoutLink.push(minute);
      if ((await drain()).length > 0) newestLinkAt = clock.now().getTime();
      clock.advance(60_000);
    }
    // With a fixed window of 3 an hour, 60 of these minutes had the owner refused and every link dead.
    expect(refusedWithoutLink).toEqual([]);
  });
});

describe('slotBudget', () => {
  it('holds any span of its window to its limit, wherever the span starts (a fixed window lets twice through at its edge)', async () => {
    const store = createMemoryStore();
    const clock = new ManualClock();
    const rule = { limit: 3, windowMs: HOUR };
    const budget = slotBudget(store.rateLimiter, clock, 'test', rule);
    const sent: number[] = [];
    const take = async () => {
      if (await budget.take('ada@example.com')) sent.push(clock.now().getTime());
    };
    await take();
    clock.advance(HOUR - 60_000);
    for (let n = 0; n < 5; n++) await take();
    // One slot freed an hour after the first mail; the two taken a minute before it hold on.
    clock.advance(60_000);
    for (let n = 0; n < 5; n++) await take();
    clock.advance(HOUR - 60_000 - 1);
    await take();
    expect(sent.length).toBe(4);
    for (const start of sent) expect(sent.filter((t) => t >= start && t < start + HOUR).length).toBeLessThanOrEqual(rule.limit);
    // A taken mail given back frees its slot at once, however many requests probed it meanwhile.
    const spare = slotBudget(store.rateLimiter, clock, 'spare', { limit: 1, windowMs: HOUR });
    const ticket = await spare.take('bob@example.com');
    expect(await spare.take('bob@example.com')).toBeNull();
    await ticket!.refund();
    expect(await spare.take('bob@example.com')).not.toBeNull();
  });

  it('asks the limiter nothing about an inbox this process found full, until its first slot ends; a permission is never remembered', async () => {
    const store = createMemoryStore();
    const clock = new ManualClock();
    let calls = 0;
    const limiter = store.rateLimiter;
    const counting: RateLimiter = {
      consume: (key, rule, now) => (calls++, limiter.consume(key, rule, now)),
      refund: (key, now) => limiter.refund(key, now),
      clear: (key) => limiter.clear(key),
      deleteExpired: (now) => limiter.deleteExpired(now),
    };
    const budget = slotBudget(counting, clock, 'test', { limit: 2, windowMs: HOUR });
    const other = slotBudget(store.rateLimiter, clock, 'test', { limit: 2, windowMs: HOUR });
    expect(await budget.take('ada@example.com')).not.toBeNull();
    clock.advance(60_000);
    expect(await other.take('ada@example.com')).not.toBeNull();
    calls = 0;
    expect(await budget.take('ada@example.com')).toBeNull();
    expect(calls).toBe(2);
    for (let n = 0; n < 10; n++) expect(await budget.take('ada@example.com')).toBeNull();
    expect(calls).toBe(2);
    // The first slot ends an hour after its mail: asked again, and it is free.
    clock.advance(HOUR - 60_000);
    expect(await budget.take('ada@example.com')).not.toBeNull();
    expect(calls).toBe(3);
  });
});
