import type { Kysely } from 'kysely';
import type { RateLimitHit, RateLimiter, RateLimitRule } from '@sl-accounts/service/core';
import { statement, type RunStatement } from './compiled.ts';
import type { Database } from './database.ts';

// One statement: the row lock taken by ON CONFLICT serialises concurrent requests for a key, so each
// sees the count the one before it left. A window that has ended starts afresh here, which is why the
// sweep is only housekeeping.
const consume = statement(3, (db, key: string, resetAt: Date, now: Date) =>
  db
    .insertInto('rate_limit_windows')
    .values({ key, count: 1, reset_at: resetAt })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => {
        const ended = eb('rate_limit_windows.reset_at', '<=', now);
        return {
          count: eb.case().when(ended).then(1).else(eb('rate_limit_windows.count', '+', 1)).end(),
          reset_at: eb.case().when(ended).then(eb.ref('excluded.reset_at')).else(eb.ref('rate_limit_windows.reset_at')).end(),
        };
      }),
    )
    .returning(['count', 'reset_at']),
);
const refund = statement(2, (db, key: string, now: Date) =>
  db
    .updateTable('rate_limit_windows')
    .set((eb) => ({ count: eb('count', '-', 1) }))
    .where('key', '=', key)
    .where('reset_at', '>', now)
    .where('count', '>', 0),
);

/** Fixed windows in the `rate_limit_windows` table, shared by every process on the database. */
export class PostgresRateLimiter implements RateLimiter {
  readonly #db: Kysely<Database>;
  readonly #run: RunStatement;

  /** `run` runs the hot statements (compiled once); the rest go through `db`. */
  constructor(db: Kysely<Database>, run: RunStatement) {
    this.#db = db;
    this.#run = run;
  }

  async consume(key: string, rule: RateLimitRule, now: Date): Promise<RateLimitHit> {
    const [row] = await consume(this.#run, key, new Date(now.getTime() + rule.windowMs), now);
    if (!row) throw new Error('the limiter statement returned no row');
    return { allowed: row.count <= rule.limit, count: row.count, resetAt: row.reset_at };
  }

  async refund(key: string, now: Date): Promise<void> {
    // One statement under the row's lock, so concurrent refunds and consumes each see the other's count.
    await refund(this.#run, key, now);
  }

  async clear(key: string): Promise<void> {
    // One statement: a consume under the row's lock runs wholly before it (and is forgotten) or after (a new window).
    await this.#db.deleteFrom('rate_limit_windows').where('key', '=', key).execute();
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.#db.deleteFrom('rate_limit_windows').where('reset_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
