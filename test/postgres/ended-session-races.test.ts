// @module-tag database
/**
 * What ends sessions and a change a session asked for, on PostgreSQL (READ COMMITTED, a real server),
 * where units of work run at once: a change checks, inside its unit and after its compare-and-set
 * locked the account's row, that its session still stands (`stands` of the account manager); what ends
 * sessions (the operator's "end every session", the owner's "end that session") locks the same row
 * first. So the operator never answers "sessions ended" before a change by one of those sessions
 * commits: the ending waits for the change, and ends what is left after it. A race review found the
 * operator answering, then the ended session deleting the account (2026-12-07).
 *
 * Each case pauses the change inside its unit, right after its session check, and waits until the
 * operator's call is seen waiting on a lock (pg_stat_activity), never on a fixed time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { testStore } from '@sl-accounts/store-contract';
import { locatePostgres, type PostgresTestStore } from '@sl-accounts/store-postgres/testing';
import { meta, SECRETS, totpApp } from '../../packages/core/test/support/interleaving.ts';
import { ADA, pausedPostgresWorld } from '../support/paused-postgres.ts';
import { poll } from '../support/poll.ts';

const postgres = await testStore('postgres', locatePostgres);
const OPERATOR = { operator: 'ops' };

describe.skipIf(postgres.skip)(`a change by a session, and the operator ending that session, on ${postgres.title}`, () => {
  let pg: PostgresTestStore | null = null;
  afterEach(async () => {
    await pg?.close();
    pg = null;
  });

  /** Ada with TOTP on, the use cases over the pausable store, and what tells a waiting lock. */
  async function setup() {
    const { db, paused, clock, accounts, admin, signedUp, lockWaits } = await pausedPostgresWorld({ secrets: SECRETS, securityNotices: false });
    pg = db;
    const session = signedUp.session.token;
    const { code } = totpApp((await accounts.startTotp({ password: ADA.password }, meta(session))).otpauthUri, clock);
    await accounts.confirmTotp({ code: code() }, meta(session));
    clock.advance(60_000);
    return { pg: db, paused, accounts, admin, userId: signedUp.user.id, session, code, lockWaits };
  }

  it("a deletion paused after its session check: the operator's ending waits for it, then finds the account gone", async () => {
    const { pg: db, paused, accounts, admin, userId, session, code, lockWaits } = await setup();
    const pause = paused.pauseNextInUnit('sessions.findWithUser');
    const deleting = accounts.deleteAccount({ password: ADA.password, code: code() }, meta(session));
    await pause.arrived;
    let answered = false;
    const ending = admin.endSessions(userId, { reason: 'a stolen session reported' }, OPERATOR).then(
      (result) => ((answered = true), result),
      (error: unknown) => ((answered = true), Promise.reject(error)),
    );
    ending.catch(() => {});
    expect(await poll(lockWaits, (n) => n === 1, 10_000)).toBe(1);
    expect(answered).toBe(false);
    pause.release();
    await deleting;
    await expect(ending).rejects.toMatchObject({ name: 'NotFound' });
    expect(await db.query('select id from users')).toEqual([]);
  });

  it('an enrolment stored while the account is being deleted waits for the deletion and stores nothing (no foreign-key error)', async () => {
    const { pg: db, paused, accounts, userId, session, code, lockWaits } = await setup();
    const pause = paused.pauseNextInUnit('users.delete');
    const deleting = accounts.deleteAccount({ password: ADA.password, code: code() }, meta(session));
    await pause.arrived;
    const storing = db.totp.putPending(userId, 'sealed', new Date());
    expect(await poll(lockWaits, (n) => n === 1, 10_000)).toBe(1);
    pause.release();
    await deleting;
    await expect(storing).resolves.toBe(false);
  });

  it("TOTP turned off by a session paused after its session check: the operator's ending waits, then ends that session", async () => {
    const { paused, accounts, admin, userId, session, code, lockWaits } = await setup();
    const pause = paused.pauseNextInUnit('sessions.findWithUser');
    const disabling = accounts.disableTotp({ password: ADA.password, code: code() }, meta(session));
    await pause.arrived;
    let answered = false;
    const ending = admin.endSessions(userId, { reason: 'a stolen session reported' }, OPERATOR).then((result) => ((answered = true), result));
    expect(await poll(lockWaits, (n) => n === 1, 10_000)).toBe(1);
    expect(answered).toBe(false);
    pause.release();
    await disabling;
    expect(await ending).toEqual({ endedSessions: 1 });
    await expect(accounts.me(meta(session))).rejects.toMatchObject({ name: 'Unauthenticated' });
  });
});
