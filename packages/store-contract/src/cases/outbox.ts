import { expect, it } from 'vitest';
import type { AccountManager, ContactMessage, OutgoingMail, QueuedMail } from '@sl-accounts/service/core';
import type { CurrentStore } from '../current-store.ts';
import { addUser, at, DAY, digest, G0, MINUTE, PHC, T0 } from '../fixtures.ts';

const LEASE = 2 * MINUTE;
const one = { limit: 1, leaseMs: LEASE };

const message = (n: number, receivedAt = T0): ContactMessage => ({
  name: `Sender ${n}`,
  email: `sender${n}@example.com`,
  message: `Message number ${n}, long enough.`,
  clientIp: '192.0.2.1',
  userAgent: null,
  receivedAt,
});
const mail = (n: number): OutgoingMail => ({
  kind: 'contact',
  to: 'operator@example.net',
  subject: `Contact ${n}`,
  text: `Text of mail ${n}\nsecond line`,
  replyTo: `sender${n}@example.com`,
});

/** Queues mail `n` as the service does: with the contact message that causes it. */
async function queue(accounts: AccountManager, n: number, now = T0): Promise<void> {
  await accounts.addContact(message(n, now), mail(n));
}

const subjects = (mails: readonly QueuedMail[]) => mails.map((m) => m.subject);

/** A signup's verification link: unverified mail, the only way a port queues it with an account. */
async function signUp(accounts: AccountManager, email: string, now: Date): Promise<void> {
  const link = { token: { digest: digest(5000 + Number(now)), purpose: 'verify-email' as const, email, credentialGeneration: G0, data: null, failures: 0, createdAt: now, expiresAt: at(DAY) }, mails: [{ kind: 'unverified' as const, to: email, subject: `Confirm ${email}`, text: 'link' }] };
  await accounts.signUp({ name: 'Stranger', email, passwordHash: PHC, createdAt: now }, link);
}

/** Mails are queued only by the store methods that cause them; the outbox is read through its own port. */
export function outboxCases(current: CurrentStore): void {
  it('a fresh store has an empty outbox', async () => {
    expect(await current.store.outbox.depth()).toBe(0);
    expect(await current.store.outbox.claim(T0, { limit: 10, leaseMs: LEASE })).toEqual([]);
  });

  it('a contact message with a mail stores both; the claim gives the mail back exactly, as attempt 1', async () => {
    const { store, accounts, inspect } = current;
    await queue(accounts, 1);
    expect(await inspect.contactMessages()).toStrictEqual([message(1)]);
    expect(await store.outbox.depth()).toBe(1);
    const [claimed, ...rest] = await store.outbox.claim(T0, one);
    expect(rest).toEqual([]);
    expect(claimed).toStrictEqual({ ...mail(1), id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/), attempts: 1, createdAt: T0 });
  });

  it('a contact message without a mail queues nothing; a mail without Reply-To comes back without one', async () => {
    const { store, accounts } = current;
    await accounts.addContact(message(1), null);
    expect(await store.outbox.depth()).toBe(0);
    const { replyTo: _replyTo, ...bare } = mail(2);
    await accounts.addContact(message(2), bare);
    const [claimed] = await store.outbox.claim(T0, one);
    expect(claimed).toStrictEqual({ ...bare, id: expect.any(String), attempts: 1, createdAt: T0 });
  });

  it('a mail’s kind comes back as queued; a mail that names none is security mail', async () => {
    const { store, accounts } = current;
    await queue(accounts, 1, at(1));
    const { kind: _kind, ...unnamed } = mail(2);
    await accounts.addContact(message(2, at(2)), unnamed);
    await addUser(accounts, 'ada@example.com');
    await accounts.requestReset('ada@example.com', { tokenDigest: digest(1), createdAt: at(3), expiresAt: at(30 * MINUTE) }, { to: 'ada@example.com', subject: 'Reset', text: 'link' });
    await signUp(accounts, 'new@example.com', at(4));
    const claimed = await store.outbox.claim(at(4), { limit: 10, leaseMs: LEASE });
    expect(claimed.map((m) => [m.subject, m.kind])).toEqual([
      ['Contact 1', 'contact'],
      ['Contact 2', 'security'],
      ['Reset', 'security'],
      ['Confirm new@example.com', 'unverified'],
    ]);
  });

  it('neither contact mail nor unverified mail (a flood of signups’ links) ever pushes an existing account’s security mail out; the newest of each kind are kept', async () => {
    const { store, accounts, inspect } = current;
    await addUser(accounts, 'ada@example.com');
    expect(await accounts.requestReset('ada@example.com', { tokenDigest: digest(1), createdAt: T0, expiresAt: at(30 * MINUTE) }, { to: 'ada@example.com', subject: 'Reset', text: 'link' })).toBe(true);
    const flood = (inspect.bounds?.outboxMailsPerKind ?? 30) + 20;
    for (let n = 1; n <= flood; n++) await signUp(accounts, `stranger${n}@example.com`, at(n));
    for (let n = 1; n <= flood; n++) await queue(accounts, n, at(n));
    const claimed = await store.outbox.claim(at(flood), { limit: 3 * flood, leaseMs: LEASE });
    expect(claimed.filter((m) => m.kind === 'security').map((m) => m.subject)).toEqual(['Reset']);
    const unverified = claimed.filter((m) => m.kind === 'unverified');
    expect(unverified.at(-1)?.subject).toBe(`Confirm stranger${flood}@example.com`);
    expect(unverified.length).toBe(inspect.bounds?.outboxMailsPerKind ?? flood);
  });

  it('contact mail never pushes security mail out, however much of it comes', async () => {
    const { store, accounts, inspect } = current;
    await addUser(accounts, 'ada@example.com');
    const reset = { to: 'ada@example.com', subject: 'Reset', text: 'link' };
    expect(await accounts.requestReset('ada@example.com', { tokenDigest: digest(1), createdAt: T0, expiresAt: at(30 * MINUTE) }, reset)).toBe(true);
    const flood = (inspect.bounds?.outboxMailsPerKind ?? 30) + 20;
    for (let n = 1; n <= flood; n++) await queue(accounts, n, at(n));
    const claimed = await store.outbox.claim(at(flood), { limit: flood + 1, leaseMs: LEASE });
    expect(claimed.filter((m) => m.kind === 'security').map((m) => m.subject)).toEqual(['Reset']);
    // The newest contact mails are kept, whatever a bound let go.
    expect(claimed.at(-1)?.subject).toBe(`Contact ${flood}`);
  });

  it('claims security mail, then unverified mail, then contact mail, whatever has waited longer', async () => {
    const { store, accounts } = current;
    await queue(accounts, 1, at(1));
    await signUp(accounts, 'new@example.com', at(2));
    await addUser(accounts, 'ada@example.com');
    await accounts.requestReset('ada@example.com', { tokenDigest: digest(1), createdAt: at(3), expiresAt: at(30 * MINUTE) }, { to: 'ada@example.com', subject: 'Reset', text: 'link' });
    expect(subjects(await store.outbox.claim(at(3), one))).toEqual(['Reset']);
    expect(subjects(await store.outbox.claim(at(3), one))).toEqual(['Confirm new@example.com']);
    expect(subjects(await store.outbox.claim(at(3), one))).toEqual(['Contact 1']);
  });

  it('claims security mail before contact mail that has waited longer, so a backlog does not hold up a reset link', async () => {
    const { store, accounts } = current;
    for (let n = 1; n <= 3; n++) await queue(accounts, n, at(n));
    await addUser(accounts, 'ada@example.com');
    await accounts.requestReset('ada@example.com', { tokenDigest: digest(1), createdAt: at(10), expiresAt: at(30 * MINUTE) }, { to: 'ada@example.com', subject: 'Reset', text: 'link' });
    expect(subjects(await store.outbox.claim(at(10), one))).toEqual(['Reset']);
    expect(subjects(await store.outbox.claim(at(10), one))).toEqual(['Contact 1']);
    // A security mail waiting for its retry lets due contact mail go meanwhile.
    await accounts.requestReset('ada@example.com', { tokenDigest: digest(2), createdAt: at(20), expiresAt: at(30 * MINUTE) }, { to: 'ada@example.com', subject: 'Reset again', text: 'link' });
    const [again] = await store.outbox.claim(at(20), one);
    expect(again?.subject).toBe('Reset again');
    await store.outbox.retryLater(again!.id, 1, at(5_000), 'ECONNREFUSED');
    expect(subjects(await store.outbox.claim(at(30), one))).toEqual(['Contact 2']);
    expect(subjects(await store.outbox.claim(at(5_000), { limit: 2, leaseMs: LEASE }))).toEqual(['Contact 3', 'Reset again']);
  });

  it('claims only due mails, oldest first, at most `limit`', async () => {
    const { outbox } = current.store;
    await queue(current.accounts, 2, at(2));
    await queue(current.accounts, 1, at(1));
    await queue(current.accounts, 3, at(3));
    expect(await outbox.claim(T0, { limit: 10, leaseMs: LEASE })).toEqual([]);
    expect(subjects(await outbox.claim(at(2), { limit: 10, leaseMs: LEASE }))).toEqual(['Contact 1', 'Contact 2']);
    await queue(current.accounts, 4, at(4));
    await queue(current.accounts, 5, at(5));
    expect(subjects(await outbox.claim(at(10), { limit: 2, leaseMs: LEASE }))).toEqual(['Contact 3', 'Contact 4']);
    expect(await outbox.depth()).toBe(5);
  });

  it('a claimed mail is held until its lease ends, then claimed again as the next attempt', async () => {
    const { outbox } = current.store;
    await queue(current.accounts, 1);
    const [first] = await outbox.claim(T0, one);
    expect(await outbox.claim(T0, one)).toEqual([]);
    expect(await outbox.claim(at(LEASE - 1), one)).toEqual([]);
    const [again] = await outbox.claim(at(LEASE), one);
    expect(again).toStrictEqual({ ...first!, attempts: 2 });
    expect(await outbox.depth()).toBe(1);
  });

  it('markSent removes the mail: never claimed again, not counted', async () => {
    const { outbox } = current.store;
    await queue(current.accounts, 1);
    await queue(current.accounts, 2);
    const [claimed] = await outbox.claim(T0, one);
    await outbox.markSent(claimed!.id);
    expect(await outbox.depth()).toBe(1);
    expect(subjects(await outbox.claim(at(10 * LEASE), { limit: 10, leaseMs: LEASE }))).toEqual(['Contact 2']);
    // Twice is harmless (a worker whose lease ran out may mark one another worker sent).
    await expect(outbox.markSent(claimed!.id)).resolves.toBeUndefined();
  });

  it('retryLater makes the mail due at the given time, not before, and counts the attempts', async () => {
    const { outbox } = current.store;
    await queue(current.accounts, 1);
    const [claimed] = await outbox.claim(T0, one);
    await outbox.retryLater(claimed!.id, 1, at(5_000), 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:25');
    expect(await outbox.claim(at(4_999), one)).toEqual([]);
    const [second] = await outbox.claim(at(5_000), one);
    expect(second).toMatchObject({ id: claimed!.id, attempts: 2 });
    // Sooner than the lease: a retry time replaces the lease's end.
    await outbox.retryLater(claimed!.id, 2, at(6_000), 'again');
    expect(await outbox.claim(at(6_000), one)).toMatchObject([{ id: claimed!.id, attempts: 3 }]);
    expect(await outbox.depth()).toBe(1);
  });

  it('retryLater from a claim that lost its lease changes nothing', async () => {
    const { outbox } = current.store;
    await queue(current.accounts, 1);
    const [stale] = await outbox.claim(T0, one);
    const [fresh] = await outbox.claim(at(LEASE), one);
    expect(fresh!.attempts).toBe(2);
    // The first worker fails late; the mail stays held by the second claim, not pushed to the far future.
    await outbox.retryLater(stale!.id, stale!.attempts, at(1_000 * MINUTE), 'late failure');
    expect(await outbox.claim(at(2 * LEASE - 1), one)).toEqual([]);
    expect(await outbox.claim(at(2 * LEASE), one)).toMatchObject([{ id: stale!.id, attempts: 3 }]);
  });

  it('parallel claims never hand one mail to two claimers, and together take every due mail', async () => {
    const { outbox } = current.store;
    await Promise.all(Array.from({ length: 30 }, (_, i) => queue(current.accounts, i)));
    const claims = await Promise.all(Array.from({ length: 12 }, () => outbox.claim(T0, { limit: 4, leaseMs: LEASE })));
    const ids = claims.flat().map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    // 12 claims of up to 4 could take 48; there are 30, and a claim skips what another holds.
    const rest = await outbox.claim(T0, { limit: 100, leaseMs: LEASE });
    expect(new Set([...ids, ...rest.map((m) => m.id)]).size).toBe(30);
    expect(ids.length + rest.length).toBe(30);
  });
}
