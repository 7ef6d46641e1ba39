import { expect, it } from 'vitest';
import type { EmailConfirmed, EmailTokenPurpose, MailKind, OutgoingMail } from '@sl-accounts/service/core';
import type { CurrentStore } from '../current-store.ts';
import { addSession, addUser, at, DAY, digest, G0, HOUR, MINUTE, OTHER_PHC, PHC, T0 } from '../fixtures.ts';

const token = (n: number, purpose: EmailTokenPurpose, email: string, expiresAt = at(DAY), credentialGeneration = G0) => ({ digest: digest(2000 + n), purpose: `${purpose}-email` as const, email, credentialGeneration, data: null, failures: 0, createdAt: T0, expiresAt });
const mail = (to: string, subject = 'Confirm', kind?: MailKind): OutgoingMail => ({ to, subject, text: `https://example.com/verify?token=${subject}`, ...(kind ? { kind } : {}) });
/** No mails on confirmation. */
const none = (): readonly OutgoingMail[] => [];
const claimAll = async (current: CurrentStore) => (await current.store.outbox.claim(at(DAY), { limit: 100, leaseMs: MINUTE })).map((m) => ({ to: m.to, subject: m.subject, kind: m.kind }));

/** Verification and change-of-address tokens (one per account, the newest winning), and the change of name. */
export function emailCases(current: CurrentStore): void {
  it('insert with a verification link stores its token and queues its mail with the account; consume verifies the address once', async () => {
    const { store, accounts } = current;
    const ada = await accounts.signUp({ name: 'Ada', email: 'ada@example.com', passwordHash: PHC, createdAt: T0 }, { token: token(1, 'verify', 'ada@example.com'), mails: [mail('ada@example.com', 'Confirm', 'unverified')] });
    expect(ada).toEqual({ id: expect.any(Number), name: 'Ada', email: 'ada@example.com', emailVerified: false });
    expect(await claimAll(current)).toEqual([{ to: 'ada@example.com', subject: 'Confirm', kind: 'unverified' }]);
    await addSession(accounts, ada!.id, 1, at(7 * DAY));
    const done = await accounts.confirmEmailLink(digest(2001), at(HOUR), null, none);
    expect(done).toEqual({ purpose: 'verify', user: { ...ada, emailVerified: true }, previousEmail: 'ada@example.com', previousEmailVerified: false, endedSessions: [] });
    expect((await store.users.findByEmail('ada@example.com'))?.emailVerified).toBe(true);
    expect((await store.sessions.findWithUser(digest(1)))?.user.emailVerified).toBe(true);
    // Single use; the session stayed.
    expect(await accounts.confirmEmailLink(digest(2001), at(HOUR), null, none)).toBeNull();
    expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
  });

  it('a taken address at insert stores neither the token nor its mail', async () => {
    const { store, accounts } = current;
    await addUser(accounts, 'ada@example.com');
    expect(await accounts.signUp({ name: 'Eve', email: 'ada@example.com', passwordHash: PHC, createdAt: T0 }, { token: token(1, 'verify', 'ada@example.com'), mails: [mail('ada@example.com')] })).toBeNull();
    expect(await store.outbox.depth()).toBe(0);
    expect(await accounts.confirmEmailLink(digest(2001), T0, null, none)).toBeNull();
  });

  it('a token verifies its own account only; an unknown digest verifies nothing', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    expect(await accounts.requestEmailLink(ada.id, { token: token(1, 'verify', 'ada@example.com'), mails: [] })).toBe(true);
    expect(await accounts.requestEmailLink(grace.id, { token: token(2, 'verify', 'grace@example.com'), mails: [] })).toBe(true);
    expect(await accounts.confirmEmailLink(digest(2999), T0, null, none)).toBeNull();
    expect(((await accounts.confirmEmailLink(digest(2002), T0, null, none)) as EmailConfirmed).user).toEqual({ ...grace, emailVerified: true });
    expect((await store.users.findByEmail('ada@example.com'))?.emailVerified).toBe(false);
    expect((await store.users.findByEmail('grace@example.com'))?.emailVerified).toBe(true);
  });

  it('request for an unknown user stores nothing and queues no mail', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    expect(await accounts.requestEmailLink(ada.id + 1000, { token: token(1, 'verify', 'x@example.com'), mails: [mail('x@example.com')] })).toBe(false);
    expect(await store.outbox.depth()).toBe(0);
    expect(await accounts.confirmEmailLink(digest(2001), T0, null, none)).toBeNull();
  });

  it('an expired token fails (at its expiry too); the newest token of an account supersedes the one before', async () => {
    const { accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await accounts.requestEmailLink(ada.id, { token: token(1, 'verify', 'ada@example.com', at(DAY)), mails: [] });
    expect(await accounts.confirmEmailLink(digest(2001), at(DAY), null, none)).toBeNull();
    await accounts.requestEmailLink(ada.id, { token: token(2, 'verify', 'ada@example.com'), mails: [] });
    await accounts.requestEmailLink(ada.id, { token: token(3, 'verify', 'ada@example.com'), mails: [mail('ada@example.com', 'Again')] });
    expect(await accounts.confirmEmailLink(digest(2002), T0, null, none)).toBeNull();
    expect(((await accounts.confirmEmailLink(digest(2003), T0, null, none)) as EmailConfirmed).user.emailVerified).toBe(true);
    expect(await claimAll(current)).toEqual([{ to: 'ada@example.com', subject: 'Again', kind: 'security' }]);
  });

  it('a verification token mailed to an address the account no longer has verifies nothing', async () => {
    const { accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await accounts.requestEmailLink(ada.id, { token: token(1, 'change', 'lovelace@example.com'), mails: [] });
    await accounts.confirmEmailLink(digest(2001), T0, null, none);
    // Written by hand as a stale verification token would be: for the old address.
    await accounts.requestEmailLink(ada.id, { token: token(2, 'verify', 'ada@example.com'), mails: [] });
    expect(await accounts.confirmEmailLink(digest(2002), T0, null, none)).toBeNull();
  });

  it('a change token moves the account to its address, verified, ends the other sessions, moves the generation on, voids the reset token and queues the mails', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    for (const n of [1, 2, 3]) await addSession(accounts, ada.id, n, at(7 * DAY));
    await addSession(accounts, grace.id, 4, at(7 * DAY));
    await accounts.requestReset('ada@example.com', { tokenDigest: digest(1001), createdAt: T0, expiresAt: at(30 * MINUTE) }, mail('ada@example.com', 'Reset'));
    await accounts.requestEmailLink(ada.id, { token: token(1, 'change', 'lovelace@example.com'), mails: [mail('lovelace@example.com', 'Link'), mail('ada@example.com', 'Notice')] });
    expect(await claimAll(current)).toEqual(
      expect.arrayContaining([
        { to: 'ada@example.com', subject: 'Reset', kind: 'security' },
        { to: 'lovelace@example.com', subject: 'Link', kind: 'security' },
        { to: 'ada@example.com', subject: 'Notice', kind: 'security' },
      ]),
    );
    let seen: EmailConfirmed | undefined;
    const done = await accounts.confirmEmailLink(digest(2001), at(HOUR), digest(2), (confirmed) => {
      seen = confirmed;
      return [mail(confirmed.previousEmail, 'Changed'), mail(confirmed.user.email, 'Changed')];
    });
    const moved = { id: ada.id, name: ada.name, email: 'lovelace@example.com', emailVerified: true };
    expect(done).toEqual({ purpose: 'change', user: moved, previousEmail: 'ada@example.com', previousEmailVerified: false, endedSessions: expect.arrayContaining([digest(1), digest(3)]) });
    expect(seen).toEqual(done);
    expect((done as EmailConfirmed).endedSessions).toHaveLength(2);
    expect(await store.users.findByEmail('ada@example.com')).toBeNull();
    expect(await store.users.findByEmail('lovelace@example.com')).toEqual({ ...moved, passwordHash: PHC, credentialGeneration: G0 + 1 });
    expect(await store.sessions.findWithUser(digest(1))).toBeNull();
    expect(await store.sessions.findWithUser(digest(2))).toEqual({ user: moved, expiresAt: at(7 * DAY) });
    expect((await store.sessions.findWithUser(digest(4)))?.user).toEqual(grace);
    // A login that read the old generation stores no session; the reset link to the old address opens nothing.
    expect(await accounts.startSession({ tokenDigest: digest(5), userId: ada.id, credentialGeneration: G0, createdAt: T0, expiresAt: at(DAY) })).toBe(false);
    expect(await accounts.completeReset(digest(1001), at(MINUTE), OTHER_PHC)).toBeNull();
    expect(await claimAll(current)).toEqual(
      expect.arrayContaining([
        { to: 'ada@example.com', subject: 'Changed', kind: 'security' },
        { to: 'lovelace@example.com', subject: 'Changed', kind: 'security' },
      ]),
    );
    expect(await accounts.confirmEmailLink(digest(2001), at(HOUR), null, none)).toBeNull();
    // The old address is free for a new account.
    expect(await accounts.signUp({ name: 'New Ada', email: 'ada@example.com', passwordHash: PHC, createdAt: T0 })).not.toBeNull();
  });

  it('a confirmed change tells whether the owner had verified the address it left, to the mails it queues too', async () => {
    const { accounts } = current;
    const ada = await accounts.signUp({ name: 'Ada', email: 'ada@example.com', passwordHash: PHC, createdAt: T0 }, { token: token(1, 'verify', 'ada@example.com'), mails: [] });
    expect(await accounts.confirmEmailLink(digest(2001), T0, null, none)).toMatchObject({ purpose: 'verify', previousEmailVerified: false });
    await accounts.requestEmailLink(ada!.id, { token: token(2, 'change', 'lovelace@example.com'), mails: [] });
    let seen: boolean | undefined;
    const moved = await accounts.confirmEmailLink(digest(2002), T0, null, (confirmed) => {
      seen = confirmed.previousEmailVerified;
      return [];
    });
    expect(moved).toMatchObject({ purpose: 'change', previousEmail: 'ada@example.com', previousEmailVerified: true, user: { email: 'lovelace@example.com', emailVerified: true } });
    expect(seen).toBe(true);
  });

  it('a change to an address that became taken answers taken and changes nothing, not even the token', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await addSession(accounts, ada.id, 1, at(DAY));
    await accounts.requestEmailLink(ada.id, { token: token(1, 'change', 'taken@example.com'), mails: [] });
    const taker = await addUser(accounts, 'taken@example.com', 'Taker');
    const mails = () => [mail('ada@example.com', 'Changed')];
    expect(await accounts.confirmEmailLink(digest(2001), T0, null, mails)).toBe('taken');
    expect(await store.users.findByEmail('ada@example.com')).toEqual({ ...ada, passwordHash: PHC, credentialGeneration: G0 });
    expect((await store.users.findByEmail('taken@example.com'))?.id).toBe(taker.id);
    expect(await store.sessions.findWithUser(digest(1))).not.toBeNull();
    expect(await store.outbox.depth()).toBe(0);
    // Once the address is free again, the same link works.
    await accounts.deleteAccount(taker.id, G0);
    expect((await accounts.confirmEmailLink(digest(2001), T0, null, mails)) as EmailConfirmed).toMatchObject({ user: { email: 'taken@example.com' } });
  });

  it('two accounts racing to confirm a move to one address: exactly one wins, the other is told it is taken', async () => {
    const { store, accounts } = current;
    for (let round = 0; round < 5; round++) {
      const target = `prize${round}@example.com`;
      const a = await addUser(accounts, `a${round}@example.com`);
      const b = await addUser(accounts, `b${round}@example.com`);
      await accounts.requestEmailLink(a.id, { token: token(10 * round + 1, 'change', target), mails: [] });
      await accounts.requestEmailLink(b.id, { token: token(10 * round + 2, 'change', target), mails: [] });
      const results = await Promise.all([
        accounts.confirmEmailLink(digest(2000 + 10 * round + 1), T0, null, none),
        accounts.confirmEmailLink(digest(2000 + 10 * round + 2), T0, null, none),
      ]);
      expect(results.filter((r) => r === 'taken'), `round ${round}`).toHaveLength(1);
      const winner = results.find((r): r is EmailConfirmed => r !== 'taken' && r !== null);
      expect(winner?.user.email).toBe(target);
      expect((await store.users.findByEmail(target))?.id).toBe(winner?.user.id);
    }
  });

  it('a move racing a signup of the same address: exactly one gets it', async () => {
    const { store, accounts } = current;
    for (let round = 0; round < 5; round++) {
      const target = `contested${round}@example.com`;
      const a = await addUser(accounts, `mover${round}@example.com`);
      await accounts.requestEmailLink(a.id, { token: token(round, 'change', target), mails: [] });
      const [moved, signedUp] = await Promise.all([
        accounts.confirmEmailLink(digest(2000 + round), T0, null, none),
        accounts.signUp({ name: 'Signup', email: target, passwordHash: PHC, createdAt: T0 }),
      ]);
      const moverWon = moved !== 'taken' && moved !== null;
      expect(moverWon !== (signedUp !== null), `round ${round}`).toBe(true);
      expect((await store.users.findByEmail(target))?.id).toBe(moverWon ? a.id : signedUp!.id);
    }
  });

  it('a move racing a password change of the same account: exactly one of them happens', async () => {
    const { store, accounts } = current;
    for (let round = 0; round < 5; round++) {
      const a = await addUser(accounts, `racer${round}@example.com`);
      await accounts.requestEmailLink(a.id, { token: token(round, 'change', `moved${round}@example.com`), mails: [] });
      const [moved, changed] = await Promise.all([
        accounts.confirmEmailLink(digest(2000 + round), T0, null, none),
        accounts.changePassword(a.id, G0, OTHER_PHC, null),
      ]);
      const moverWon = moved !== 'taken' && moved !== null;
      expect(moverWon !== (changed !== null), `round ${round}`).toBe(true);
      const now = await store.users.findById(a.id);
      expect(now?.email, `round ${round}`).toBe(moverWon ? `moved${round}@example.com` : `racer${round}@example.com`);
      expect(now?.passwordHash, `round ${round}`).toBe(moverWon ? PHC : OTHER_PHC);
    }
  });

  it('request writes nothing under a credential generation that has moved on: no token, no mail', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    // The password changed while the request was checking the old one.
    expect(await accounts.changePassword(ada.id, G0, OTHER_PHC, null)).not.toBeNull();
    expect(await accounts.requestEmailLink(ada.id, { token: token(1, 'change', 'thief@example.com'), mails: [mail('thief@example.com', 'Link')] })).toBe(false);
    expect(await store.outbox.depth()).toBe(0);
    expect(await accounts.confirmEmailLink(digest(2001), at(MINUTE), null, none)).toBeNull();
    // Under the current generation it is written.
    expect(await accounts.requestEmailLink(ada.id, { token: token(2, 'change', 'new@example.com', at(DAY), G0 + 1), mails: [mail('new@example.com', 'Link')] })).toBe(true);
    expect(((await accounts.confirmEmailLink(digest(2002), at(MINUTE), null, none)) as EmailConfirmed).user.email).toBe('new@example.com');
  });

  it('a pending change of address dies with a password change or a completed reset: its link moves nothing afterwards', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await accounts.requestEmailLink(ada.id, { token: token(1, 'change', 'thief@example.com'), mails: [] });
    expect(await accounts.changePassword(ada.id, G0, OTHER_PHC, null)).not.toBeNull();
    expect(await accounts.confirmEmailLink(digest(2001), at(MINUTE), null, () => [mail('thief@example.com', 'Changed')])).toBeNull();
    expect(await store.users.findByEmail('ada@example.com')).toMatchObject({ id: ada.id, passwordHash: OTHER_PHC });
    expect(await store.users.findByEmail('thief@example.com')).toBeNull();
    expect(await store.outbox.depth()).toBe(0);

    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    await accounts.requestEmailLink(grace.id, { token: token(2, 'change', 'thief@example.com'), mails: [] });
    await accounts.requestReset('grace@example.com', { tokenDigest: digest(1002), createdAt: T0, expiresAt: at(30 * MINUTE) }, mail('grace@example.com', 'Reset'));
    expect(await accounts.completeReset(digest(1002), at(MINUTE), OTHER_PHC)).not.toBeNull();
    expect(await accounts.confirmEmailLink(digest(2002), at(MINUTE), null, none)).toBeNull();
    expect((await store.users.findById(grace.id))?.email).toBe('grace@example.com');
    expect(await store.users.findByEmail('thief@example.com')).toBeNull();
  });

  it('a completed password reset marks the address verified', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await accounts.requestReset('ada@example.com', { tokenDigest: digest(1001), createdAt: T0, expiresAt: at(30 * MINUTE) }, mail('ada@example.com', 'Reset'));
    expect(await accounts.completeReset(digest(1001), at(MINUTE), OTHER_PHC)).not.toBeNull();
    expect(await store.users.findById(ada.id)).toMatchObject({ emailVerified: true, passwordHash: OTHER_PHC });
  });

  it('the token goes with its account; deleteExpired removes expired tokens only', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    const grace = await addUser(accounts, 'grace@example.com', 'Grace');
    const alan = await addUser(accounts, 'alan@example.com', 'Alan');
    await accounts.requestEmailLink(ada.id, { token: token(1, 'verify', 'ada@example.com'), mails: [] });
    await accounts.requestEmailLink(grace.id, { token: token(2, 'verify', 'grace@example.com', at(HOUR)), mails: [] });
    await accounts.requestEmailLink(alan.id, { token: token(3, 'verify', 'alan@example.com', at(2 * DAY)), mails: [] });
    await accounts.deleteAccount(ada.id, G0);
    expect(await accounts.confirmEmailLink(digest(2001), T0, null, none)).toBeNull();
    expect((await store.deleteExpired(at(DAY))).oneTimeTokens).toEqual({ 'verify-email': 1 });
    expect((await store.deleteExpired(at(DAY))).oneTimeTokens).toEqual({});
    expect(await accounts.confirmEmailLink(digest(2003), at(DAY), null, none)).not.toBeNull();
  });

  it('rename sets the name, which sessions show at once; an unknown user is null', async () => {
    const { store, accounts } = current;
    const ada = await addUser(accounts, 'ada@example.com');
    await addSession(accounts, ada.id, 1, at(DAY));
    expect(await accounts.rename(ada.id, 'Augusta Ada King')).toEqual({ ...ada, name: 'Augusta Ada King' });
    expect((await store.sessions.findWithUser(digest(1)))?.user.name).toBe('Augusta Ada King');
    expect((await store.users.findByEmail('ada@example.com'))?.name).toBe('Augusta Ada King');
    expect(await accounts.rename(ada.id + 1000, 'Nobody')).toBeNull();
  });
}
