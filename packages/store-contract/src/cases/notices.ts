import { expect, it } from 'vitest';
import type { AccountMail, QueuedMail, Store } from '@sl-accounts/service/core';
import type { CurrentStore } from '../current-store.ts';
import { addSession, addUser, at, DAY, digest, G0, MINUTE, OTHER_PHC, T0 } from '../fixtures.ts';

const LEASE = 2 * MINUTE;

/** A notice as the core hands it to a store method, queued at `queuedAt`. */
const notice = (subject: string, queuedAt = at(MINUTE)): AccountMail => ({ kind: 'security', subject, text: `${subject}.\nWhen: ${queuedAt.toISOString()}`, queuedAt });

/** What a claim gives back of `notice` sent to `to`. */
const claimed = (to: string, sent: AccountMail) => {
  const { queuedAt, ...mail } = sent;
  return { ...mail, to, id: expect.any(String), attempts: 1, createdAt: queuedAt };
};

/** Every mail due at `now`, claimed. */
const claimAll = (store: Store, now = at(DAY)): Promise<readonly QueuedMail[]> => store.outbox.claim(now, { limit: 1_000, leaseMs: LEASE });

const reset = (n: number) => ({ tokenDigest: digest(1000 + n), createdAt: T0, expiresAt: at(30 * MINUTE) });
const RESET_MAIL = { to: 'ada@example.com', subject: 'Reset', text: 'link' };

/**
 * Security notices: each store method that makes a change takes the change's notice and queues it to
 * the account's address (read with the change) in the same transaction, or not at all.
 */
export function noticeCases(current: CurrentStore): void {
  it('changePassword queues its notice to the account’s address, due from its time, exactly as given', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const sent = notice('Password changed');
    expect(await accounts.changePassword(ada.id, G0, OTHER_PHC, null, sent)).toEqual([]);
    expect(await store.outbox.depth()).toBe(1);
    expect(await store.outbox.claim(at(MINUTE - 1), { limit: 10, leaseMs: LEASE })).toEqual([]);
    expect(await claimAll(store, at(MINUTE))).toStrictEqual([claimed('ada@example.com', sent)]);
  });

  it('changePassword that changes nothing (a stale generation, an unknown user) queues nothing; without a notice, nothing either', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    expect(await accounts.changePassword(ada.id, G0 + 1, OTHER_PHC, null, notice('stale'))).toBeNull();
    expect(await accounts.changePassword(ada.id + 1000, G0, OTHER_PHC, null, notice('unknown'))).toBeNull();
    expect(await accounts.changePassword(ada.id, G0, OTHER_PHC, null)).toEqual([]);
    expect(await accounts.changePassword(ada.id, G0 + 1, OTHER_PHC, null, null)).toEqual([]);
    expect(await store.outbox.depth()).toBe(0);
  });

  it('of concurrent changePasswords under one generation exactly one succeeds, and exactly one notice is queued', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const results = await Promise.all(Array.from({ length: 8 }, (_, n) => accounts.changePassword(ada.id, G0, OTHER_PHC, null, notice(`Change ${n}`))));
    const won = results.flatMap((r, n) => (r === null ? [] : [`Change ${n}`]));
    expect(won).toHaveLength(1);
    expect((await claimAll(store)).map((m) => m.subject)).toEqual(won);
  });

  it('delete queues its notice to the address the account had: it is claimed after the account is gone', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await addSession(accounts, ada.id, 1, at(DAY));
    const sent = notice('Account deleted');
    expect(await accounts.deleteAccount(ada.id, G0, sent)).toEqual([digest(1)]);
    expect(await store.users.findById(ada.id)).toBeNull();
    // The address is free again; the notice still goes to it, once.
    await addUser(accounts, 'ada@example.com', 'Another Ada');
    expect(await claimAll(store)).toStrictEqual([claimed('ada@example.com', sent)]);
  });

  it('delete that deletes nothing queues nothing; of concurrent deletes one notice is queued', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    expect(await accounts.deleteAccount(ada.id, G0 + 1, notice('stale'))).toBeNull();
    expect(await accounts.deleteAccount(ada.id + 1000, G0, notice('unknown'))).toBeNull();
    expect(await store.outbox.depth()).toBe(0);
    const results = await Promise.all(Array.from({ length: 8 }, (_, n) => accounts.deleteAccount(ada.id, G0, notice(`Delete ${n}`))));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await claimAll(store)).toHaveLength(1);
  });

  it('resets.consume queues its notice to the account’s address; a token that opens nothing queues nothing', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await accounts.requestReset('ada@example.com', reset(1), RESET_MAIL);
    await claimAll(store, T0).then((mails) => Promise.all(mails.map((m) => store.outbox.markSent(m.id))));
    expect(await accounts.completeReset(digest(9999), at(MINUTE), OTHER_PHC, notice('unknown token'))).toBeNull();
    expect(await accounts.completeReset(digest(1001), at(30 * MINUTE), OTHER_PHC, notice('expired token'))).toBeNull();
    expect(await store.outbox.depth()).toBe(0);
    const sent = notice('Password reset');
    expect(await accounts.completeReset(digest(1001), at(MINUTE), OTHER_PHC, sent)).toEqual({ userId: ada.id, email: 'ada@example.com', endedSessions: [] });
    expect(await accounts.completeReset(digest(1001), at(MINUTE), OTHER_PHC, notice('used token'))).toBeNull();
    expect(await claimAll(store)).toStrictEqual([claimed('ada@example.com', sent)]);
  });

  it('resets.consume of a token a change of credential voided queues nothing', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await accounts.requestReset('ada@example.com', reset(1), RESET_MAIL);
    await claimAll(store, T0).then((mails) => Promise.all(mails.map((m) => store.outbox.markSent(m.id))));
    // A change of credential voids the token (this one queues no notice of its own).
    await accounts.changePassword(ada.id, G0, OTHER_PHC, null);
    expect(await accounts.completeReset(digest(1001), at(MINUTE), OTHER_PHC, notice('stale token'))).toBeNull();
    expect(await store.outbox.depth()).toBe(0);
  });

  it('sessions.create queues its notice to the user’s address only when it stores the session, with or without a bound', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const session = (n: number, credentialGeneration = G0, userId = ada.id) => ({ tokenDigest: digest(n), userId, credentialGeneration, createdAt: T0, expiresAt: at(DAY) });
    const first = notice('New device 1', at(1));
    const second = notice('New device 2', at(2));
    expect(await accounts.startSession(session(1), undefined, first)).toBe(true);
    expect(await accounts.startSession(session(2), 5, second)).toBe(true);
    expect(await accounts.startSession(session(3), undefined, null)).toBe(true);
    expect(await accounts.startSession(session(4, G0 + 1), undefined, notice('stale'))).toBe(false);
    expect(await accounts.startSession(session(5, G0 + 1), 5, notice('stale, bounded'))).toBe(false);
    expect(await accounts.startSession(session(6, G0, ada.id + 1000), 5, notice('no such user'))).toBe(false);
    expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
    expect(await store.sessions.findWithUser(digest(2))).not.toBeNull();
    expect(await claimAll(store)).toStrictEqual([claimed('ada@example.com', first), claimed('ada@example.com', second)]);
  });

  it('a session create racing a change of credential: its notice is queued exactly when its session was stored', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const creates = Array.from({ length: 10 }, (_, n) =>
      accounts.startSession({ tokenDigest: digest(n + 1), userId: ada.id, credentialGeneration: G0, createdAt: T0, expiresAt: at(DAY) }, n % 2 === 0 ? 50 : undefined, notice(`Sign-in ${n + 1}`)),
    );
    const [ended, ...stored] = await Promise.all([accounts.changePassword(ada.id, G0, OTHER_PHC, null), ...creates]);
    const signedIn = stored.flatMap((ok, n) => (ok ? [`Sign-in ${n + 1}`] : []));
    // Every stored session was ended by the change (none outlives it), and each has its one notice.
    expect([...(ended ?? [])].sort()).toEqual(stored.flatMap((ok, n) => (ok ? [digest(n + 1)] : [])).sort());
    expect((await claimAll(store)).map((m) => m.subject).sort()).toEqual(signedIn.sort());
  });

  it('contact mail never pushes a notice out, however much of it comes', async () => {
    const { store, accounts, inspect } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await accounts.changePassword(ada.id, G0, OTHER_PHC, null, notice('Password changed', T0));
    const flood = (inspect.bounds?.outboxMailsPerKind ?? 30) + 20;
    for (let n = 1; n <= flood; n++) {
      await accounts.addContact(
        { name: `Sender ${n}`, email: `sender${n}@example.com`, message: 'A message long enough.', clientIp: '192.0.2.1', userAgent: null, receivedAt: at(n) },
        { kind: 'contact', to: 'operator@example.net', subject: `Contact ${n}`, text: 'text' },
      );
    }
    const mails = await claimAll(store, at(flood));
    expect(mails.filter((m) => m.kind === 'security').map((m) => m.subject)).toEqual(['Password changed']);
  });
}
