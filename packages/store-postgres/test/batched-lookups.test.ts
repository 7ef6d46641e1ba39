/**
 * Session lookups on a Postgres server's pool go out together: those asked in one turn of the event
 * loop become one statement (sessions.ts, `batchedLookups`). Here on a stand-in for the pool that
 * records what it was asked and answers from a table of its own; the store contract checks the same
 * lookups against real databases.
 */
import { describe, expect, it } from 'vitest';
import { StoreUnavailable } from '@sl-accounts/service/core';
import { sessionRepository } from '../src/sessions.ts';

const digest = (n: number) => n.toString(16).padStart(64, '0');
const expiresAt = new Date('2030-01-01T00:00:00Z');
/** The rows the stand-in holds: sessions 1 and 2, of users 10 and 20. */
const ROWS = [
  { token_digest: digest(1), id: 10, name: 'Ada', email: 'ada@example.com', email_verified: true, expires_at: expiresAt },
  { token_digest: digest(2), id: 20, name: 'Bo', email: 'bo@example.com', email_verified: false, expires_at: expiresAt },
];

function standIn(answer?: () => Promise<unknown[]>) {
  const statements: { sql: string; parameters: readonly unknown[] }[] = [];
  const run = async (sql: string, parameters: readonly unknown[]) => {
    statements.push({ sql, parameters });
    if (answer) return answer();
    const asked = parameters[0] as string | readonly string[];
    return ROWS.filter((row) => (Array.isArray(asked) ? asked.includes(row.token_digest) : row.token_digest === asked));
  };
  return { run, statements };
}

describe('session lookups on a Postgres server', () => {
  it('asked in one turn, go out as one statement, each answered with its own session', async () => {
    const { run, statements } = standIn();
    const sessions = sessionRepository({ run, inTransaction: false, batchReads: true });
    const answers = await Promise.all([sessions.findWithUser(digest(2)), sessions.findWithUser(digest(3)), sessions.findWithUser(digest(1)), sessions.findWithUser(digest(2))]);
    expect(statements).toHaveLength(1);
    expect(statements[0]!.sql).toContain('= any(');
    // Each digest asked once, whatever the requests repeated.
    expect([...(statements[0]!.parameters[0] as string[])].sort()).toEqual([digest(1), digest(2), digest(3)]);
    expect(answers.map((a) => a?.user.name ?? null)).toEqual(['Bo', null, 'Ada', 'Bo']);
    expect(answers[0]).toEqual({ user: { id: 20, name: 'Bo', email: 'bo@example.com', emailVerified: false }, expiresAt });
  });

  it('asked in different turns, go out separately: a lookup never waits for a later one', async () => {
    const { run, statements } = standIn();
    const sessions = sessionRepository({ run, inTransaction: false, batchReads: true });
    expect((await sessions.findWithUser(digest(1)))?.user.id).toBe(10);
    expect((await sessions.findWithUser(digest(2)))?.user.id).toBe(20);
    expect(statements).toHaveLength(2);
  });

  it('fail together when their statement fails, each with the error the store gave; the next turn asks afresh', async () => {
    let failing = true;
    const { run, statements } = standIn(async () => {
      if (failing) throw new StoreUnavailable();
      return ROWS;
    });
    const sessions = sessionRepository({ run, inTransaction: false, batchReads: true });
    const outcomes = await Promise.allSettled([sessions.findWithUser(digest(1)), sessions.findWithUser(digest(2))]);
    for (const outcome of outcomes) expect(outcome.status === 'rejected' && outcome.reason).toBeInstanceOf(StoreUnavailable);
    failing = false;
    expect((await sessions.findWithUser(digest(1)))?.user.name).toBe('Ada');
    expect(statements).toHaveLength(2);
  });

  it('in a unit of work, or without batching, each lookup is its own statement on its own connection', async () => {
    for (const unit of [{ inTransaction: true, batchReads: true }, { inTransaction: false, batchReads: false }]) {
      const { run, statements } = standIn();
      const sessions = sessionRepository({ run, ...unit });
      await Promise.all([sessions.findWithUser(digest(1)), sessions.findWithUser(digest(2))]);
      expect(statements).toHaveLength(2);
      expect(statements.every((s) => !s.sql.includes('any('))).toBe(true);
    }
  });
});
