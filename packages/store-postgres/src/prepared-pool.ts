import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { StoreUnavailable } from '@sl-accounts/service/core';
import { toStoreError } from './unavailable.ts';

export interface PoolBounds {
  /**
   * Most milliseconds one statement may take, counted from when it asks for a connection (the pool
   * bounds that wait by its own `connectionTimeoutMillis`) to its answer. Omitted: no bound.
   */
  readonly statementTimeoutMs?: number;
  /** How long `end()` waits for statements still running before it drops their connections. */
  readonly endTimeoutMs?: number;
}

/** The pool Kysely runs on, which also runs compiled statements itself. */
export interface PreparingPool extends PostgresPool {
  /**
   * Runs one statement on a pooled connection and returns its rows, without Kysely's executor (its
   * connection providers, wrappers and result plugins cost more than the rest of a hot request). The
   * same connections, with every guarantee below.
   */
  rows(sql: string, parameters: readonly unknown[]): Promise<unknown[]>;
  /**
   * Runs `work` in one transaction on one pooled connection, its statements run as `rows` runs them
   * (each within the statement bound): BEGIN, then COMMIT when `work` resolves, or ROLLBACK when it
   * throws (the error is passed on). A connection that failed on the way is destroyed, never reused.
   */
  transaction<T>(work: (run: (sql: string, parameters: readonly unknown[]) => Promise<unknown[]>) => Promise<T>): Promise<T>;
  /**
   * The same pool without the statement bound (for migrations): its connections are ended by the
   * same `end()`, which either view may call, any number of times.
   */
  readonly unbounded: PostgresPool;
}

/**
 * pg's Pool as Kysely's PostgresDialect sees it, with these changes:
 *
 * - A statement with parameters goes out as a named prepared statement, so each connection parses
 *   and plans it once and afterwards only binds and executes. Kysely compiles a query to the same
 *   text every time and the adapters build no SQL from values, so the set of names stays small.
 * - Connection failures come out as core's StoreUnavailable, whichever query met them.
 * - With `statementTimeoutMs`, a statement that gets no answer in time fails with StoreUnavailable,
 *   and its connection is destroyed, never returned to the pool: the answer it still owes would
 *   otherwise be read as the next statement's.
 * - `end()` is bounded by `endTimeoutMs`: past it, connections still checked out (by either view)
 *   are destroyed, so their statements fail, and statements still waiting for a connection fail too.
 *   It can be called more than once (Kysely calls it only if it ran a query; the store always does).
 */
export function preparingPool(pool: pg.Pool, bounds: PoolBounds = {}): PreparingPool {
  // Kysely keys its connection objects by client; keep one wrapper per pg client to match.
  const wrappers = new WeakMap<pg.PoolClient, PreparingClient>();
  const checkedOut = new Set<PreparingClient>();
  const { statementTimeoutMs, endTimeoutMs } = bounds;
  // The waits for a connection still unanswered, each failed when end() gives up waiting. A set of
  // their rejections, not a race against one promise that end() would reject: each race leaves a
  // reaction on a promise that never settles while the pool lives, ~300 bytes per statement kept
  // until the process ends (+74 MiB RSS after 250,000 uncached `/api/me` requests, measured).
  const waiting = new Set<(error: Error) => void>();
  let dropped = false;
  let ending: Promise<void> | undefined;

  /** pg-pool's connection, or a rejection as soon as end() gives up waiting. */
  function connection(): { readonly connecting: Promise<pg.PoolClient>; readonly waited: Promise<pg.PoolClient> } {
    const connecting = pool.connect();
    const waited = new Promise<pg.PoolClient>((resolve, reject) => {
      waiting.add(reject);
      connecting.then(
        (client) => {
          waiting.delete(reject);
          resolve(client);
        },
        (error: unknown) => {
          waiting.delete(reject);
          reject(error as Error);
        },
      );
    });
    return { connecting, waited };
  }

  async function connect(bounded: boolean): Promise<PreparingClient> {
    const asked = performance.now();
    const { connecting, waited } = connection();
    let client: pg.PoolClient;
    try {
      client = await waited;
    } catch (error) {
      // A connection that arrives after all goes straight back, to be ended with the pool.
      if (dropped) void connecting.then((late) => late.release(true), () => {});
      throw toStoreError(error);
    }
    if (dropped) {
      client.release(true);
      throw new StoreUnavailable();
    }
    let wrapper = wrappers.get(client);
    if (!wrapper) {
      wrapper = new PreparingClient(client, () => checkedOut.delete(wrapper!));
      wrappers.set(client, wrapper);
    }
    checkedOut.add(wrapper);
    const budget = bounded && statementTimeoutMs !== undefined ? { firstMs: statementTimeoutMs - (performance.now() - asked), nextMs: statementTimeoutMs } : undefined;
    wrapper.checkOut(budget);
    return wrapper;
  }

  async function end(): Promise<void> {
    const ended = pool.end();
    if (endTimeoutMs === undefined || (await settlesWithin(ended, endTimeoutMs))) return ended;
    // Their statements fail at once (the pool sees them released and finishes ending), whatever
    // the database does; so do those still waiting for a connection.
    dropped = true;
    for (const reject of waiting) reject(new StoreUnavailable());
    waiting.clear();
    for (const client of checkedOut) client.destroy();
    await settlesWithin(ended, endTimeoutMs);
  }
  const endOnce = (): Promise<void> => (ending ??= end());

  return {
    options: pool.options,
    connect: () => connect(true),
    async rows(sql, parameters) {
      const client = await connect(true);
      try {
        return (await client.run(sql, parameters)).rows;
      } finally {
        client.release();
      }
    },
    async transaction(work) {
      const client = await connect(true);
      let broken = false;
      try {
        await client.run('begin', []);
        const result = await work(async (sql, parameters) => (await client.run(sql, parameters)).rows);
        await client.run('commit', []);
        return result;
      } catch (error) {
        // A connection whose transaction cannot be rolled back is in no state to be reused.
        await client.run('rollback', []).catch(() => (broken = true));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    end: endOnce,
    unbounded: { options: pool.options, connect: () => connect(false), end: endOnce },
  };
}

/** Whether `promise` settles within `ms`; a rejection still rejects. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Time left for this checkout's statements: the first one counts its wait for the connection. */
interface StatementBudget {
  readonly firstMs: number;
  readonly nextMs: number;
}

class PreparingClient implements PostgresPoolClient {
  readonly #client: pg.PoolClient;
  readonly #onRelease: () => void;
  #budget: StatementBudget | undefined;
  #first = true;
  /** Set when a statement timed out: the connection still owes its answer, so it must not be reused. */
  #broken = false;

  constructor(client: pg.PoolClient, onRelease: () => void) {
    this.#client = client;
    this.#onRelease = onRelease;
  }

  /**
   * Lets Kysely cancel a running query by backend pid. Kysely's type says `processID?: number`, which
   * a getter can only meet with a number (exactOptionalPropertyTypes); 0 when pg has none, which
   * Kysely treats as it treats a missing pid (it asks the server for it).
   */
  get processID(): number {
    return (this.#client as { processID?: number }).processID ?? 0;
  }

  checkOut(budget: StatementBudget | undefined): void {
    this.#budget = budget;
    this.#first = true;
  }

  query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(sql: string | PostgresCursor<R>, parameters: readonly unknown[] = []): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sql !== 'string') throw new Error('Cursors are not configured for this pool');
    return this.run(sql, parameters);
  }

  release(destroy?: boolean): void {
    this.#onRelease();
    // pg-pool replaces `release` on every checkout, so look it up each time. A truthy argument makes
    // it end the client (destroying the socket when a query is still active) instead of keeping it.
    this.#client.release(destroy || this.#broken);
  }

  /** Ends the connection now; a statement running on it fails with a connection error. */
  destroy(): void {
    this.#broken = true;
    // pg's end() destroys the socket when a query is active, else says goodbye.
    void this.#client.end().catch(() => {});
  }

  /** Runs one statement within this checkout's budget. */
  async run<R>(text: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>> {
    if (this.#broken) throw new StoreUnavailable();
    // pg only reads the values (it serialises them into a new message).
    const values = parameters as unknown[];
    // Parameterless statements (BEGIN, DDL, `select 1`) gain nothing from preparing.
    const query: pg.QueryConfig & { query_timeout?: number } = values.length > 0 ? { name: statementName(text), text, values } : { text, values };
    if (this.#budget) {
      const ms = this.#first ? this.#budget.firstMs : this.#budget.nextMs;
      // pg reads 0 as "no timeout"; a wait that used up the budget still leaves the statement 1 ms.
      query.query_timeout = Math.max(1, Math.ceil(ms));
    }
    this.#first = false;
    try {
      return (await this.#client.query(query)) as unknown as PostgresQueryResult<R>;
    } catch (error) {
      if (isReadTimeout(error)) {
        this.#broken = true;
        throw new StoreUnavailable({ cause: error });
      }
      throw toStoreError(error);
    }
  }
}

/** pg's client-side `query_timeout` fired: the query was sent and its answer is still owed. */
function isReadTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}

const names = new Map<string, string>();

/** A name unique to the statement text (Postgres allows 63 bytes), hashed once per text. */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `sl_${createHash('sha1').update(text).digest('base64url')}`;
    // The adapters build no SQL from values, so the texts are few; the bound is only a safeguard.
    if (names.size < 1000) names.set(text, name);
  }
  return name;
}
